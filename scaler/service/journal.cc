#include "journal.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace nfv {

namespace {

// A line torn by a crash mid-write is cut off, so that the next entry
// starts a line of its own rather than finishing that one.
void cut_torn_tail(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.empty() || text.back() == '\n') return;
  const std::size_t keep = text.find_last_of('\n') == std::string::npos ? 0 : text.find_last_of('\n') + 1;
  in.close();
  std::error_code error;
  std::filesystem::resize_file(path, keep, error);
  if (error) throw std::runtime_error(path + ": cannot cut the line torn by a crash: " + error.message());
}

}  // namespace

Journal::Journal(const std::string& path, std::uint64_t rotate_bytes) : path_(path), rotate_bytes_(rotate_bytes) {
  cut_torn_tail(path);
  out_.open(path, std::ios::app);
  if (!out_) throw std::runtime_error(path + ": cannot open the journal for appending");
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  bytes_ = error ? 0 : size;
}

void Journal::rotate() {
  out_.close();
  std::error_code error;
  std::filesystem::rename(path_, rotated_path(path_), error);
  if (error) throw std::runtime_error(path_ + ": cannot rotate the journal to " + rotated_path(path_) + ": " + error.message());
  out_.open(path_, std::ios::app);
  if (!out_) throw std::runtime_error(path_ + ": cannot open the journal for appending");
  bytes_ = 0;
}

void Journal::write(const scaler::JournalEntry& entry) {
  std::string line;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(entry, &line, options);
  out_ << line << '\n';
  out_.flush();
  if (!out_) throw std::runtime_error(path_ + ": cannot write the journal");
  bytes_ += line.size() + 1;
  if (rotate_bytes_ > 0 && bytes_ >= rotate_bytes_) rotate();
}

namespace {

// A torn last line is left out where a crash may have torn it (the file
// being written); elsewhere (a rotated file, complete) it is an error.
void read_file(const std::string& path, bool may_be_torn, std::vector<scaler::JournalEntry>& entries) {
  std::ifstream in(path);
  if (!in) return;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    scaler::JournalEntry entry;
    const auto status = google::protobuf::util::JsonStringToMessage(lines[i], &entry);
    if (!status.ok()) {
      if (may_be_torn && i + 1 == lines.size()) break;  // torn by a crash while writing
      throw std::runtime_error(path + ":" + std::to_string(i + 1) + ": not a journal entry: " + status.ToString());
    }
    entries.push_back(std::move(entry));
  }
}

}  // namespace

std::vector<scaler::JournalEntry> Journal::read(const std::string& path) {
  std::vector<scaler::JournalEntry> entries, current;
  read_file(rotated_path(path), false, entries);
  read_file(path, true, current);
  if (!entries.empty() && !current.empty()) {
    // The two must follow each other: a .1 left from an earlier run (its
    // journal removed, not the .1) would make a history with a gap.
    const std::uint64_t after = entries.back().slot() + std::max<std::uint64_t>(entries.back().slots(), 1);
    if (current.front().slot() != after)
      throw std::runtime_error(rotated_path(path) + " ends before slot " + std::to_string(after) + " but " + path +
                               " starts at slot " + std::to_string(current.front().slot()) +
                               ": not one journal (remove both to start afresh)");
  }
  entries.insert(entries.end(), std::make_move_iterator(current.begin()), std::make_move_iterator(current.end()));
  return entries;
}

}  // namespace nfv
