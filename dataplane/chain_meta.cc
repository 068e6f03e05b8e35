#include "chain_meta.h"

#include <stdexcept>
#include <string>

#include <rte_errno.h>

namespace nfv {

int g_chain_meta_offset = -1;

void register_chain_meta_field() {
  static const rte_mbuf_dynfield descriptor = {
      "geo_nfv_chain_meta", sizeof(ChainMeta), alignof(ChainMeta), 0};
  g_chain_meta_offset = rte_mbuf_dynfield_register(&descriptor);
  if (g_chain_meta_offset < 0)
    throw std::runtime_error(std::string("cannot register the chain mbuf dynfield: ") + rte_strerror(rte_errno));
}

}  // namespace nfv
