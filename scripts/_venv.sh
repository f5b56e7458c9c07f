# Shared by scripts/start and scripts/test: create .venv and install the project into it.
# Re-installs only when pyproject.toml changed since the last install.
ensure_venv() {
  local extra="${1:-}"
  local py="${PYTHON:-python3}"
  if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "Kolkhoz needs Python 3.11 or newer (found: $("$py" --version 2>&1))" >&2
    exit 1
  fi
  if [ ! -x .venv/bin/python ]; then
    echo "Creating a virtual environment in .venv ..."
    "$py" -m venv .venv
  fi
  # shellcheck disable=SC1091
  source .venv/bin/activate
  local stamp=".venv/.installed-${extra:-base}"
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    echo "Installing dependencies (first run takes a minute) ..."
    python -m pip install --quiet --upgrade pip
    if [ -n "$extra" ]; then
      python -m pip install --quiet -e ".[$extra]"
    else
      python -m pip install --quiet -e .
    fi
    touch "$stamp"
  fi
  python -m kolkhoz_tg.i18n_compile
}
