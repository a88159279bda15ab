#!/bin/sh
# One workspace (default): make it on first start (existing files are never
# touched), point it at the Qdrant server named by QDRANT_URL, then serve on all
# interfaces; `memory serve` refuses a non-loopback address without
# MEMORY_SERVICE_TOKEN.
# Many workspaces (MEMORY_WORKSPACES=/workspaces): serve every workspace folder
# under it at /w/{workspace}/ with MEMORY_PROCESSES processes; workspaces are
# created through POST /admin/workspaces (MEMORY_ADMIN_TOKEN) and pointed at
# QDRANT_URL, keyed by their id in one shared collection.
set -eu
if [ -n "${MEMORY_WORKSPACES:-}" ]; then
    mkdir -p "$MEMORY_WORKSPACES"
    exec memory serve --workspaces "$MEMORY_WORKSPACES" --processes "${MEMORY_PROCESSES:-2}" \
        --host 0.0.0.0 --port 8765
fi
ws=/workspace
memory init --workspace "$ws" >/dev/null
if [ -n "${QDRANT_URL:-}" ] && ! grep -q '^\[memory.substrate.qdrant\]' "$ws/config.toml"; then
    printf '\n[memory.substrate.qdrant]\nurl = "%s"\n' "$QDRANT_URL" >> "$ws/config.toml"
fi
exec memory serve --workspace "$ws" --host 0.0.0.0 --port 8765
