// A config's TLS section (pod config, nfv-scaler's control and pods) as the
// control API's servers and clients take it.
#pragma once

#include "pod_config.pb.h"
#include "tls_files.h"

namespace nfv {

inline TlsFiles tls_files(const config::ControlTls& tls) { return TlsFiles{tls.cert(), tls.key(), tls.ca()}; }

}  // namespace nfv
