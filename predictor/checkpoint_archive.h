// What checkpoints store next to the weights, in a LibTorch archive: lists
// of numbers as float64 tensors and back, and the caller's extras (named
// text and numbers). For the sources that already include <torch/torch.h>.
#pragma once

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

}  // namespace nfv
