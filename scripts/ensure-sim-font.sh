#!/usr/bin/env bash
# Makes sure the chart font of `stoic-sim` is present: DejaVu Sans from
# Debian's fonts-dejavu-core, loaded by the simulator at run time (plotters'
# ab_glyph backend, so no font library is needed to build). Skips everything
# when the file is there, or when STOIC_SIM_FONT points at another font.
set -euo pipefail

font=${STOIC_SIM_FONT:-/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}
if [[ -r "$font" ]]; then
  exit 0
fi
if [[ -n "${STOIC_SIM_FONT:-}" ]]; then
  echo "ensure-sim-font: STOIC_SIM_FONT=$font is not readable" >&2
  exit 1
fi
if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-sim-font: $font is missing; install fonts-dejavu-core (as root: apt-get install -y fonts-dejavu-core)," >&2
  echo "ensure-sim-font: set STOIC_SIM_FONT to a .ttf file, or run stoic-sim with --no-charts" >&2
  exit 1
fi
echo "ensure-sim-font: installing fonts-dejavu-core"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-dejavu-core
