// Lists of numbers as float64 tensors and back, for what checkpoints store
// next to the weights (configs, extras, normalisation). For the sources
// that already include <torch/torch.h>.
#pragma once

#include <vector>

#include <torch/torch.h>

namespace nfv {

inline torch::Tensor numbers_tensor(const std::vector<double>& values) {
  return torch::tensor(at::ArrayRef<double>(values), torch::kFloat64);
}

inline std::vector<double> tensor_numbers(const torch::Tensor& t) {
  const torch::Tensor d = t.to(torch::kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

}  // namespace nfv
