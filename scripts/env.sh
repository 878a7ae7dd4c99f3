# Sourced by run.sh and test.sh: puts the CUDA toolkit on PATH when it is where it usually is.
if [ -d /usr/local/cuda/bin ]; then
  case ":$PATH:" in *":/usr/local/cuda/bin:"*) ;; *) export PATH="$PATH:/usr/local/cuda/bin" ;; esac
fi
export PTXKIT_JOBS="${PTXKIT_JOBS:-$(nproc)}"
if command -v ptxas >/dev/null 2>&1 || [ -n "${PTXAS:-}" ]; then
  export PTXKIT_HAVE_PTXAS=1
else
  export PTXKIT_HAVE_PTXAS=0
  echo "NOTE: ptxas not found: every ptxas check is SKIPPED in this run (set PTXAS or install CUDA)"
fi
# ccache keys objects by paths relative to the checkout (the build passes -ffile-prefix-map), so a
# fresh clone reuses what another clone compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
