// The critic's projection after each TD step: every agent's parameters w
// (a row of [N, P]) back onto the ball ||w - w0|| <= radius around the
// common initial parameters w0 ([1, P] or [N, P]); rows already inside stay
// exactly as they were. Per row, so each agent projects on its own.
#pragma once

#include <torch/torch.h>

namespace nfv {

inline torch::Tensor project_onto_ball(const torch::Tensor& flat, const torch::Tensor& center, double radius) {
  const torch::Tensor offset = flat - center;
  const torch::Tensor norm = offset.norm(2, {1}, true);
  return torch::where(norm > radius, center + offset * (radius / norm), flat);
}

}  // namespace nfv
