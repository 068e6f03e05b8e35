// Site names for imported graphs, shared by the GraphML and CSV importers so
// that both files of one Zoo topology give the same names.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace nfv {

// Labels ("New York") read better than GraphML ids ("0"), but only serve as
// names when every node has one and no two are alike.
inline bool labels_usable_as_names(const std::vector<std::string>& labels) {
  const std::set<std::string> distinct(labels.begin(), labels.end());
  return !labels.empty() && distinct.size() == labels.size() && !distinct.contains("");
}

}  // namespace nfv
