#include "subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bounded_wait.h"

namespace nfv::test {

Subprocess::Subprocess(const std::vector<std::string>& argv, const std::string& stdout_path, const std::string& stderr_path) {
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int error = posix_spawnp(&pid_, args[0], &files, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (error != 0)
    throw std::runtime_error("cannot start " + argv[0] + " (output to " + stdout_path + " and " + stderr_path +
                             "): " + std::strerror(error));
}

Subprocess::~Subprocess() {
  if (running()) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
  }
}

bool Subprocess::running() {
  if (exited_) return false;
  if (waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
  return !exited_;
}

void Subprocess::signal(int signo) {
  if (running()) kill(pid_, signo);
}

int Subprocess::wait(std::chrono::milliseconds timeout) {
  if (!poll_until([&] { return !running(); }, timeout)) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
    exited_ = true;
    return -1;
  }
  return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
}

namespace {

// Whether `pid` has ended (its status reaped) within `bound`.
bool reaped_within(pid_t pid, int& status, std::chrono::milliseconds bound) {
  return poll_until(
      [&] {
        const pid_t r = waitpid(pid, &status, WNOHANG);
        return r == pid || (r < 0 && errno != EINTR);
      },
      std::max(bound, std::chrono::milliseconds(0)));
}

}  // namespace

CommandResult run_command(const std::string& command, int timeout_s) {
  // The deadline is the caller's, from the call: the answer ends at it even
  // if something the command started still holds the pipe open, or the
  // command writes elsewhere and never ends.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return {-1, "pipe failed"};
  // posix_spawn, not fork: a test process that links LibTorch is large, and
  // fork copies its page tables and runs its atfork handlers. The command's
  // own process group lets the deadline stop it and what it started together.
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&files, out[1], STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  char* const args[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>(command.c_str()), nullptr};
  const int error = posix_spawn(&pid, "/bin/sh", &files, &attr, args, environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
  if (error != 0) {
    close(out[0]);
    close(out[1]);
    return {-1, std::string("cannot start /bin/sh: ") + std::strerror(error)};
  }
  close(out[1]);
  std::string output;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready <= 0) continue;  // the deadline, or a signal: checked above
    char buffer[4096];
    const ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(buffer, static_cast<std::size_t>(n));
  }
  close(out[0]);
  int status = 0;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (reaped_within(pid, status, left)) return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
  // As timeout(1) -k: SIGTERM first, so a script's traps stop what it
  // started (the demo's processes), then SIGKILL after a grace period.
  kill(-pid, SIGTERM);
  if (!reaped_within(pid, status, std::chrono::seconds(30))) {
    kill(-pid, SIGKILL);
    reaped_within(pid, status, std::chrono::seconds(30));
  }
  return {124, output + "\n(no end within " + std::to_string(timeout_s) + " s: stopped)"};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string make_temp_dir(const std::string& tag) {
  std::string pattern = "/tmp/nfv-test-" + tag + "-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) throw std::runtime_error(std::string("environment variable ") + name + " is not set (run through meson test)");
  return value;
}

}  // namespace nfv::test
