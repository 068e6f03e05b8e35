// Whatever a trainer stores next to a network in a checkpoint: named text
// and named number lists (the data split, the seed, the normalisation...).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nfv {

struct CheckpointExtras {
  std::vector<std::pair<std::string, std::string>> text;
  std::vector<std::pair<std::string, std::vector<double>>> numbers;
};

}  // namespace nfv
