// Reads YAML (or JSON, which is YAML too) into any protobuf message, field
// by field through reflection, so every schema in proto/ gets the same
// errors: "file:line: field.path: expected ...", for unknown fields (with
// the known ones listed), wrong types and unknown enum names. Enum values are
// written without their prefix, in lower case (DRIVER_MEMIF -> memif).
#pragma once

#include <map>
#include <string>

#include <google/protobuf/message.h>

namespace nfv {

// Where each field came from, to locate errors found after loading.
struct YamlSource {
  std::string file;
  std::map<std::string, int> line_of_field;  // "chains[0].hops[1].site" -> 1-based line

  // "file:line: field: expected ..." using the closest field with a line.
  std::string locate(const std::string& field, const std::string& expected) const;
};

// Parses `text` (named `file_name` in messages) into `message`. Throws
// std::runtime_error with a located message on the first mistake.
YamlSource parse_yaml_message(const std::string& text, const std::string& file_name, google::protobuf::Message& message);

// Reads the file, then parses it as above.
YamlSource load_yaml_message(const std::string& path, google::protobuf::Message& message);

}  // namespace nfv
