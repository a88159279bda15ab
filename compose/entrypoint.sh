#!/bin/sh
# Make the workspace on first start (existing files are never touched), point
# it at the Qdrant server named by QDRANT_URL, then serve on all interfaces.
# `memory serve` refuses a non-loopback address without MEMORY_SERVICE_TOKEN.
set -eu
ws=/workspace
memory init --workspace "$ws" >/dev/null
if [ -n "${QDRANT_URL:-}" ] && ! grep -q '^\[memory.substrate.qdrant\]' "$ws/config.toml"; then
    printf '\n[memory.substrate.qdrant]\nurl = "%s"\n' "$QDRANT_URL" >> "$ws/config.toml"
fi
exec memory serve --workspace "$ws" --host 0.0.0.0 --port 8765
