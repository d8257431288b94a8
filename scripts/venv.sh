# Sourced by scripts/serve and scripts/test: make sure .venv exists and has pip.
# $PYTHON names the interpreter (python3 by default; it must be 3.11 or newer).
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "forsale needs Python 3.11 or newer; $PY is $("$PY" --version 2>&1 || echo missing)." >&2
  echo "Install one and name it: PYTHON=python3.11 bash $0" >&2
  exit 1
fi
if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  rm -rf .venv  # a half-made one (say, a venv that failed for want of ensurepip) would stop every later run
  if ! "$PY" -c 'import ensurepip' >/dev/null 2>&1; then
    # Debian and Ubuntu ship venv's pip in a package of its own.
    echo "installing python3-venv (without it a virtual environment has no pip)"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
  fi
  "$PY" -m venv .venv
fi
