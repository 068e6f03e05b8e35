#!/bin/sh
# Regenerates the ready-made topologies of this folder from the real data in
# ../shared/data/topologies with nfv-topology (build it first:
# ninja -C build topologies/nfv-topology). Usage, from the repository root:
#   topologies/data/generate.sh [path/to/nfv-topology]
# The defaults below are the same for every file and are explained in
# topologies/README.md; they are not measured, change them here.
set -eu
tool=${1:-build/topologies/nfv-topology}
src=${NFV_SHARED_DATA:-../shared/data}/topologies
out=topologies/data

# Every file gets the same defaults for what the sources do not say.
import_with_defaults() {
  "$tool" import "$@" --route-factor 1.3 --capacity 16 --operating-price 1.0 --deployment-price 5.0 \
    --price-per-gb 0.02 --vnf forward:1000000:1:256 --vnf counter:500000:1:512 \
    --note "Defaults, not from the source (topologies/README.md): route factor 1.3 (fibre vs great circle)," \
    --note "16 VNF instances per site, operating price 1.0 per instance-slot, deployment price 5.0 per new" \
    --note "instance (five slots of running), 0.02 per GB of WAN transfer (cloud inter-region egress)," \
    --note "VNF service rates per instance on one core (to calibrate against ./nfv bench)."
}

import_with_defaults "$src/sndlib/abilene.xml" \
  --chain video:NYCMng:LOSAng:counter+forward+counter:60 > "$out/abilene.yaml"
import_with_defaults "$src/zoo/Geant2009.graphml" --name geant2009 \
  --chain video:UK:GR:counter+forward+counter:60 > "$out/geant2009.yaml"
import_with_defaults "$src/b4/b4_nodes.csv" \
  --chain replication:6:15:counter+forward:120 > "$out/b4.yaml"
# The demo's three pods: NYCM, CHIN, KSCY joined as in Abilene (NYCM-CHIN,
# CHIN-KSCY), with the demo's two chains.
import_with_defaults "$src/sndlib/abilene.xml" --name demo3 --sites NYCMng,CHINng,KSCYng \
  --chain video:NYCMng:KSCYng:counter+forward+counter:50 \
  --chain calls:NYCMng:KSCYng:counter+counter:50 > "$out/demo3.yaml"
# AT&T's MPLS backbone (25 PoPs): the size at which the online policy's
# decision time is measured (bench/policy_costs with a gravity trace from
# nfv-trace).
import_with_defaults "$src/zoo/AttMpls.graphml" --name attmpls \
  --chain video:NY54:LA03:counter+forward+counter:60 > "$out/attmpls.yaml"
