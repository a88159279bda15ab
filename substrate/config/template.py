"""The commented `config.toml` that `memory init` writes: every key of
`keys.KEYS` with its default and what it does, the tier switches set."""

from __future__ import annotations

from substrate.config import keys
from substrate.config.keys import Key, toml_value

NOTES = {
    keys.MEMORY: "",
    keys.V3: "The lane-based read path, the tier new workspaces start on.",
    keys.V2: (
        "The legacy v2 engine. Its substrate twins (dense_weight, bm25_k1, ...) are the\n"
        "historical defaults for [memory.substrate]; `memory config migrate` copies\n"
        "values you set here. It answers turns only while v3 is not live."
    ),
    keys.SUBSTRATE: (
        "Substrate tunables. Each key falls back to its memory.v2 twin.\n"
        "dense_weight + sparse_weight must sum to 1."
    ),
    keys.QDRANT: "A Qdrant server instead of the embedded store.",
    keys.COMPUTE: "How the embedding models run.",
    keys.LLM: "Any OpenAI-compatible chat-completions endpoint (the key is read from api_key_env).",
    keys.LIMITS: "What one call may carry; over a limit is refused before anything is stored.",
}
OPTIONAL = (keys.QDRANT, keys.COMPUTE, keys.LLM)  # tables shown commented out
INIT_SWITCHES = {"memory.v3.live": True}  # what `memory init` sets unlike the defaults


def render_template() -> str:
    parts = [
        "# Memory workspace configuration. Every key is optional: an absent key takes\n"
        "# the default shown in its comment. Each key's range: docs/configuration.md.\n"
    ]
    for table in keys.TABLES:
        parts.append(_table(table))
    return "\n".join(parts)


def _table(table: str) -> str:
    optional = table in OPTIONAL
    lead = "# " if optional else ""
    lines = [f"{lead}[{table}]"]
    lines += [f"# {line}" for line in NOTES[table].splitlines()]
    for key in (k for k in keys.KEYS if k.table == table):
        lines.append(_line(key, optional))
    return "\n".join(lines) + "\n"


def _line(key: Key, optional: bool) -> str:
    if key.switch:
        value = INIT_SWITCHES.get(key.dotted, key.default)
        return f"{key.name} = {toml_value(value)}   # {key.help}"
    shown = key.default if key.default is not None else key.example
    setting = f"# {key.name} = {toml_value(shown)}"
    return f"{setting:<44} # {key.help}"


CONFIG_TEMPLATE = render_template()
