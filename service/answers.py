"""Answer fields the HTTP routes and the MCP tools give alike, defined once so
their names, types and descriptions never drift apart."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

Voice = Annotated[
    Literal["own", "passed_on"],
    Field(
        description="`own`: the person's own statement; `passed_on`: words they pass on "
        "(quoted, forwarded, pasted, to transform, reported, hypothetical), kept as a note "
        "that takes none of the person's facts."
    ),
]
Speaker = Annotated[
    str | None, Field(description="Whose words they are, when the text names them.")
]
