#include "yaml_message.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <yaml-cpp/yaml.h>

namespace nfv {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

class YamlToMessage {
 public:
  explicit YamlToMessage(YamlSource& out) : out_(out) {}

  void fill(const YAML::Node& node, Message& message, const std::string& path) {
    remember(path, node);
    if (!node.IsMap()) fail(path, node, "a mapping of " + std::string(message.GetDescriptor()->name()) + " fields");
    const Descriptor* descriptor = message.GetDescriptor();
    for (const auto& item : node) {
      const std::string key = key_of(item.first, path);
      const FieldDescriptor* field = descriptor->FindFieldByName(key);
      if (!field) field = find_by_json_name(descriptor, key);
      const std::string field_path = path.empty() ? key : path + "." + key;
      if (!field) fail(field_path, item.first, "one of the fields of " + descriptor->name() + " (" + field_names(descriptor) + ")");
      fill_field(item.second, message, field, field_path);
    }
  }

 private:
  void fill_field(const YAML::Node& node, Message& message, const FieldDescriptor* field, const std::string& path) {
    remember(path, node);
    if (field->is_map()) {
      if (!node.IsMap()) fail(path, node, "a mapping of key: value");
      const FieldDescriptor* key_field = field->message_type()->FindFieldByName("key");
      const FieldDescriptor* value_field = field->message_type()->FindFieldByName("value");
      for (const auto& item : node) {
        Message* entry = message.GetReflection()->AddMessage(&message, field);
        const std::string entry_path = path + "." + key_of(item.first, path);
        set_scalar(item.first, *entry, key_field, entry_path);
        set_scalar(item.second, *entry, value_field, entry_path);
      }
      return;
    }
    if (field->is_repeated()) {
      if (!node.IsSequence()) fail(path, node, "a list");
      for (std::size_t i = 0; i < node.size(); ++i) {
        const std::string item_path = path + "[" + std::to_string(i) + "]";
        remember(item_path, node[i]);
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
          fill(node[i], *message.GetReflection()->AddMessage(&message, field), item_path);
        else
          set_scalar(node[i], message, field, item_path);
      }
      return;
    }
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      fill(node, *message.GetReflection()->MutableMessage(&message, field), path);
      return;
    }
    set_scalar(node, message, field, path);
  }

  void set_scalar(const YAML::Node& node, Message& message, const FieldDescriptor* field, const std::string& path) {
    const Reflection* r = message.GetReflection();
    const bool repeated = field->is_repeated();
    if (!node.IsScalar() && !node.IsNull()) fail(path, node, "a single " + type_name(field) + " value");
    const std::string text = node.IsNull() ? "null" : node.Scalar();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        repeated ? r->AddString(&message, field, text) : r->SetString(&message, field, text);
        break;
      case FieldDescriptor::CPPTYPE_BOOL: {
        std::string lower = to_lower(text);
        bool value;
        if (lower == "true" || lower == "yes" || lower == "on") value = true;
        else if (lower == "false" || lower == "no" || lower == "off") value = false;
        else fail(path, node, "true or false, got '" + text + "'");
        repeated ? r->AddBool(&message, field, value) : r->SetBool(&message, field, value);
        break;
      }
      case FieldDescriptor::CPPTYPE_DOUBLE:
      case FieldDescriptor::CPPTYPE_FLOAT: {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(value)) fail(path, node, "a number, got '" + text + "'");
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE)
          repeated ? r->AddDouble(&message, field, value) : r->SetDouble(&message, field, value);
        else
          repeated ? r->AddFloat(&message, field, static_cast<float>(value)) : r->SetFloat(&message, field, static_cast<float>(value));
        break;
      }
      case FieldDescriptor::CPPTYPE_UINT32: {
        const uint32_t value = parse_integer<uint32_t>(text, node, path);
        repeated ? r->AddUInt32(&message, field, value) : r->SetUInt32(&message, field, value);
        break;
      }
      case FieldDescriptor::CPPTYPE_UINT64: {
        const uint64_t value = parse_integer<uint64_t>(text, node, path);
        repeated ? r->AddUInt64(&message, field, value) : r->SetUInt64(&message, field, value);
        break;
      }
      case FieldDescriptor::CPPTYPE_INT32: {
        const int32_t value = parse_integer<int32_t>(text, node, path);
        repeated ? r->AddInt32(&message, field, value) : r->SetInt32(&message, field, value);
        break;
      }
      case FieldDescriptor::CPPTYPE_INT64: {
        const int64_t value = parse_integer<int64_t>(text, node, path);
        repeated ? r->AddInt64(&message, field, value) : r->SetInt64(&message, field, value);
        break;
      }
      case FieldDescriptor::CPPTYPE_ENUM: {
        const auto* value = find_enum_value(field, text);
        if (!value) fail(path, node, "one of " + enum_names(field) + ", got '" + text + "'");
        repeated ? r->AddEnum(&message, field, value) : r->SetEnum(&message, field, value);
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        fail(path, node, "a mapping");
    }
  }

  template <typename T>
  T parse_integer(const std::string& text, const YAML::Node& node, const std::string& path) {
    T value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
      fail(path, node,
           std::string(std::is_signed_v<T> ? "an integer" : "a non-negative integer") + " up to " +
               std::to_string(std::numeric_limits<T>::max()) + ", got '" + text + "'");
    return value;
  }

  // Enum values are written in configs without their prefix, in lower case
  // ("memif" for DRIVER_MEMIF). A bare YAML `null` is the null driver.
  static std::string config_name(const google::protobuf::EnumValueDescriptor* value) {
    const std::string& name = value->name();
    const auto cut = name.find('_');
    return to_lower(cut == std::string::npos ? name : name.substr(cut + 1));
  }

  static const google::protobuf::EnumValueDescriptor* find_enum_value(const FieldDescriptor* field, const std::string& text) {
    const std::string wanted = to_lower(text == "~" ? "null" : text);
    for (int i = 0; i < field->enum_type()->value_count(); ++i) {
      const auto* value = field->enum_type()->value(i);
      if (value->number() != 0 && config_name(value) == wanted) return value;
    }
    return nullptr;
  }

  static std::string enum_names(const FieldDescriptor* field) {
    std::string names;
    for (int i = 0; i < field->enum_type()->value_count(); ++i) {
      if (field->enum_type()->value(i)->number() == 0) continue;
      if (!names.empty()) names += ", ";
      names += config_name(field->enum_type()->value(i));  // appends: GCC 12 warns falsely on "" + std::string
    }
    return names;
  }

  // JSON configs may use camelCase names (protobuf's JSON mapping).
  static const FieldDescriptor* find_by_json_name(const Descriptor* descriptor, const std::string& key) {
    for (int i = 0; i < descriptor->field_count(); ++i)
      if (descriptor->field(i)->json_name() == key) return descriptor->field(i);
    return nullptr;
  }

  static std::string field_names(const Descriptor* descriptor) {
    std::string names;
    for (int i = 0; i < descriptor->field_count(); ++i) names += (i ? ", " : "") + descriptor->field(i)->name();
    return names;
  }

  static std::string type_name(const FieldDescriptor* field) {
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING: return "string";
      case FieldDescriptor::CPPTYPE_BOOL: return "boolean";
      case FieldDescriptor::CPPTYPE_ENUM: return "name";
      default: return "number";
    }
  }

  static std::string to_lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  }

  // A mapping's key as text; a list or a mapping as a key (`{a: 1}: 2`, `? [x]`) is refused by name.
  std::string key_of(const YAML::Node& key, const std::string& path) {
    if (!key.IsScalar()) fail(path, key, "a field name (a list, a mapping or nothing is no key)");
    return key.Scalar();
  }

  void remember(const std::string& path, const YAML::Node& node) {
    if (!path.empty() && node.Mark().line >= 0) out_.line_of_field.emplace(path, node.Mark().line + 1);
  }

  [[noreturn]] void fail(const std::string& path, const YAML::Node& node, const std::string& expected) {
    const int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    throw std::runtime_error(out_.file + ":" + std::to_string(line) + ": " + (path.empty() ? "(top level)" : path) +
                             ": expected " + expected);
  }

  YamlSource& out_;
};

}  // namespace

std::string YamlSource::locate(const std::string& field, const std::string& expected) const {
  // Fall back to the closest enclosing field we know a line for.
  std::string probe = field;
  int line = 0;
  while (!probe.empty()) {
    auto it = line_of_field.find(probe);
    if (it != line_of_field.end()) {
      line = it->second;
      break;
    }
    const auto cut = probe.find_last_of(".[");
    probe = cut == std::string::npos ? "" : probe.substr(0, cut);
  }
  return file + ":" + std::to_string(line) + ": " + field + ": expected " + expected;
}

YamlSource parse_yaml_message(const std::string& text, const std::string& file_name, Message& message) {
  YamlSource out;
  out.file = file_name;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(file_name + ":" + std::to_string(e.mark.line + 1) + ": expected valid YAML or JSON (" +
                             e.msg + ")");
  }
  YamlToMessage(out).fill(root, message, "");
  return out;
}

YamlSource load_yaml_message(const std::string& path, Message& message) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_yaml_message(buffer.str(), path, message);
}

}  // namespace nfv
