#include "drop_reasons.h"

namespace nfv {

const char* drop_reason_name(DropReason reason) {
  static const char* const names[] = {
#define NFV_DROP_NAME(name, text) #name,
      NFV_DROP_REASONS(NFV_DROP_NAME)
#undef NFV_DROP_NAME
  };
  return reason < DropReason::kCount ? names[static_cast<int>(reason)] : "unknown";
}

const char* drop_reason_description(DropReason reason) {
  static const char* const texts[] = {
#define NFV_DROP_TEXT(name, text) text,
      NFV_DROP_REASONS(NFV_DROP_TEXT)
#undef NFV_DROP_TEXT
  };
  return reason < DropReason::kCount ? texts[static_cast<int>(reason)] : "unknown";
}

}  // namespace nfv
