// The slot loop's backend for real pods (backend.h): plans through the
// pods' control APIs, measurements from their telemetry, on the slot clock.
#pragma once

#include <memory>

#include "backend.h"
#include "scaler_setup.h"

namespace nfv {

std::unique_ptr<Backend> make_pods_backend(const ScalerSetup& setup);

}  // namespace nfv
