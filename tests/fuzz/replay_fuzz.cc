// config_fuzz.cc's replay_config reader, alone because replay_config.h and
// the scaler's plan.h each declare a ChainTraffic.
#include <string>

#include "replay_config.h"

void nfv_fuzz_replay_config(const std::string& text) { (void)nfv::parse_replay_config(text, "fuzz.yaml"); }
