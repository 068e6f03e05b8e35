// What checkpoints store next to the weights, in a LibTorch archive: lists
// of numbers as float64 tensors and back, and the caller's extras (named
// text and numbers). For the sources that already include <torch/torch.h>.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkpoint_extras.h"

#include <torch/torch.h>

namespace nfv {

inline torch::Tensor numbers_tensor(const std::vector<double>& values) {
  return torch::tensor(at::ArrayRef<double>(values), torch::kFloat64);
}

inline std::vector<double> tensor_numbers(const torch::Tensor& t) {
  const torch::Tensor d = t.to(torch::kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

inline void write_extras(torch::serialize::OutputArchive& archive, const CheckpointExtras& extras) {
  for (const auto& [key, value] : extras.text) archive.write("text." + key, c10::IValue(value));
  for (const auto& [key, values] : extras.numbers) archive.write("numbers." + key, numbers_tensor(values));
}

// Fills every entry `wanted` names (c10::Error when one is missing).
inline void read_extras(torch::serialize::InputArchive& archive, CheckpointExtras& wanted) {
  for (auto& [key, value] : wanted.text) {
    c10::IValue text;
    archive.read("text." + key, text);
    value = text.toStringRef();
  }
  for (auto& [key, values] : wanted.numbers) {
    torch::Tensor t;
    archive.read("numbers." + key, t);
    values = tensor_numbers(t);
  }
}

// Writes the archive beside `path`, then renames it there: a reader never
// sees half a checkpoint. Throws std::runtime_error naming the path.
inline void save_archive(torch::serialize::OutputArchive& archive, const std::string& path) {
  try {
    const std::string partial = path + ".partial";
    archive.save_to(partial);
    if (std::rename(partial.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + partial);
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": cannot write the checkpoint (" + e.what_without_backtrace() + ")");
  }
}

}  // namespace nfv
