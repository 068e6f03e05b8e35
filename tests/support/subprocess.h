// Starting real processes (pods, tshark, ip, the UDP probe) from tests:
// output goes to files the test can read, every wait has a deadline.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace nfv::test {

class Subprocess {
 public:
  // Starts argv[0] (looked up on PATH) with stdout/stderr redirected to the
  // given files; throws std::runtime_error when it cannot be started or a
  // file cannot be opened.
  Subprocess(const std::vector<std::string>& argv, const std::string& stdout_path, const std::string& stderr_path);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // Waits for exit; returns the exit code, or -1 on timeout (then kills it).
  int wait(std::chrono::milliseconds timeout);
  void signal(int signo);
  bool running();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool exited_ = false;
};

struct CommandResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// Runs a shell command to completion, bounded by `timeout_s`: at it, the
// command's process group gets SIGTERM, SIGKILL 30 s later, and the exit
// code is 124.
CommandResult run_command(const std::string& command, int timeout_s = 60);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);
std::string make_temp_dir(const std::string& tag);
// Environment variable, or fails the test when it is missing.
std::string required_env(const char* name);

}  // namespace nfv::test
