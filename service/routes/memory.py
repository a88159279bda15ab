"""`/v1/memory/*`: remember, ingest, search, the card, maintenance and stats; and
tending memory: forget, correct, history, and page edits (write, edit against
a content hash, move, delete into the trash, restore, pin). Each route is one
`Memory` call, the same the CLI and the MCP tools make."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, BackgroundTasks, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ingest import IngestOptions, InlineSource
from lanes.health import RESETS, UNSAVED
from service.answers import Speaker, Voice
from service.routes.common import ERRORS, Strict, runtime, settings, surface
from service.runtime import Runtime
from service.served_jobs import REEMBED
from substrate import Settings, collect_stats, iso_utc
from substrate.intake import parse_at
from substrate.meaning import read_text

router = APIRouter(prefix="/v1/memory", tags=["memory"], responses=ERRORS)
RuntimeDep = Annotated[Runtime, Depends(runtime)]
SettingsDep = Annotated[Settings, Depends(settings)]
SurfaceDep = Annotated[str, Depends(surface)]


class RememberIn(Strict):
    text: str = Field(min_length=1, description="The fact to remember.")
    hints: list[str] = Field(default_factory=list, description="Slugs of related pages.")
    at: str | None = Field(None, description="ISO 8601 time to stamp the fact with (backdating).")
    explain: bool = Field(False, description="Also answer how the text was read (`reading`).")


class RememberOut(BaseModel):
    id: str
    at: str
    text: str
    held: str | None = Field(
        None, description="The scanner rule holding the fact for review (kept, not filed)."
    )
    why: str | None = Field(None, description="What that rule saw, when the fact is held.")
    voice: Voice = "own"
    speaker: Speaker = None
    reading: dict[str, Any] | None = Field(
        None, description="With `explain`: the voice, subject, slot, family and kind read."
    )


class ReleaseIn(Strict):
    ids: list[str] = Field(default_factory=list, description="Held entry ids to release.")
    all: bool = Field(False, description="Release every held fact.")


class PageIn(Strict):
    slug: str = Field(min_length=1)
    content: str = Field(description="The whole page: optional YAML frontmatter, then markdown.")


class IngestIn(Strict):
    pages: list[PageIn]
    dry_run: bool = False
    overwrite: bool = False
    source: str | None = Field(None, description="Adds `source: import:SOURCE` where missing.")
    wait: bool = Field(True, description="Return only once written pages are searchable.")


class SearchIn(Strict):
    query: str = Field(description="Refused when blank or over memory.limits.query_bytes.")
    k: int = Field(10, ge=1, le=1000)
    capabilities: bool = False
    kind: Literal["page", "episode", "all"] = Field(
        "all", description="Pages, the conversation log's episodes, or both."
    )


class CardIn(Strict):
    message: str
    conversation_id: str | None = None
    voice_front_door: bool = False
    direct: bool = Field(
        False,
        description="The message is the user's own input: log it in the conversation "
        "(and promote from it) after the card is answered.",
    )


class MaintainIn(Strict):
    rebuild: bool = False


@router.post("/remember", response_model=RememberOut)
def remember_post(body: RememberIn, rt: RuntimeDep) -> JSONResponse:
    entry = rt.memory.remember(body.text, body.hints, parse_at(body.at) if body.at else None)
    heard = read_text(entry.text)
    out = RememberOut(
        id=entry.id,
        at=iso_utc(entry.at) or "",
        text=entry.text,
        held=entry.held,
        why=entry.why,
        voice=heard.attribution.voice,
        speaker=heard.attribution.speaker,
        reading=heard.as_json() if body.explain else None,
    )
    return JSONResponse(out.model_dump())  # checked here, not on a second pool hop


@router.get("/facts/{slug:path}")
def memory_facts(slug: str, rt: RuntimeDep, all: bool = False) -> dict[str, Any]:
    """A page's facts with their status (`all`: those no longer true too)."""
    return rt.memory.facts(slug, all)


@router.get("/held")
def held_get(rt: RuntimeDep) -> dict[str, Any]:
    """Facts held for review: a person's words the scanner read as an attack on a
    judgement alone, kept in the buffer and not filed until released."""
    return {"held": rt.memory.held()}


@router.post("/release")
def release_post(body: ReleaseIn, rt: RuntimeDep) -> dict[str, Any]:
    """Release held facts; the next consolidation files them."""
    return {"released": rt.memory.release(body.ids, body.all)}


@router.post("/ingest", operation_id="memory_ingest_post")
def ingest_post(body: IngestIn, rt: RuntimeDep) -> dict[str, Any]:
    """Writes the pages, then re-indexes them (on this request, or queued on the
    worker without `wait`: `job_id` names the job)."""
    manifest = InlineSource(tuple((p.slug, p.content) for p in body.pages))
    options = IngestOptions(dry_run=body.dry_run, overwrite=body.overwrite, source=body.source)
    done = rt.memory.ingest(manifest, options, reindex=body.wait)
    job_id = None
    if not body.wait and not body.dry_run:
        job_id = rt.queue.enqueue(REEMBED, {"reason": "ingest"}).id
    return {
        **done.report.as_json(),
        "index": done.indexed.as_json() if done.indexed else None,
        "index_error": done.index_error,
        "job_id": job_id,
    }


@router.post("/search")
def search_post(body: SearchIn, rt: RuntimeDep) -> JSONResponse:
    hits = rt.memory.search(body.query, body.k, body.capabilities, body.kind)
    return JSONResponse({"query": body.query, "hits": hits})  # rendered off the loop


@router.post("/card")
def card_post(body: CardIn, rt: RuntimeDep, later: BackgroundTasks) -> JSONResponse:
    blocks = rt.memory.card(body.message, body.conversation_id, body.voice_front_door)
    if body.direct and body.conversation_id and not body.voice_front_door:
        # off the card's path: logged and promoted once the answer is sent
        later.add_task(rt.log_after_card, body.conversation_id, body.message)
    # Rendered here, on this request's thread: a dict returned would be encoded on
    # the event loop, which every other request waits on.
    return JSONResponse(blocks)


@router.post("/maintain")
def maintain_post(body: MaintainIn, rt: RuntimeDep) -> dict[str, Any]:
    return rt.maintain(rebuild=body.rebuild).as_json()


@router.get("/stats")
def stats_get(rt: RuntimeDep, s: SettingsDep) -> dict[str, Any]:
    return {
        **collect_stats(s, rt.injector.page_index()).as_json(),
        "jobs": rt.queue.counts(),
        "last_runs": rt.queue.last_runs(),
        "derived_resets": dict(RESETS),
        "derived_unsaved": dict(UNSAVED),
    }


class ForgetFactIn(Strict):
    what: str = Field(
        min_length=1,
        description="A fact id or text, a promotion id (p-…), a curation candidate id (c-…) "
        "or a profile line's text.",
    )
    page: str | None = Field(None, description="Only facts on this page.")
    all: bool = Field(False, description="Forget every fact the text matches.")


class CorrectIn(Strict):
    fact_id: str = Field(min_length=1)
    text: str = Field(min_length=1, description="The corrected fact (scanned, dated now).")


class WriteIn(Strict):
    slug: str = Field(min_length=1)
    content: str = Field(description="The whole page: optional YAML frontmatter, then markdown.")
    overwrite: bool = Field(False, description="Replace the page when it exists.")
    expected_sha256: str | None = Field(None, description="Replace only if it still has this hash.")


class EditIn(Strict):
    slug: str = Field(min_length=1)
    expected_sha256: str = Field(description="The page's hash as read (`GET /pages/{slug}`).")
    new: str = Field(description="The replacing text.")
    old: str | None = Field(None, description="The span to replace (it must occur once).")
    section: str | None = Field(None, description="A heading whose body `new` replaces.")


class MoveIn(Strict):
    slug: str = Field(min_length=1)
    to: str = Field(min_length=1)


class SlugIn(Strict):
    slug: str = Field(min_length=1)


class RestoreIn(Strict):
    name: str = Field(min_length=1, description="A trash entry's name, or a slug (newest).")


class PinIn(Strict):
    slug: str = Field(min_length=1)
    core: bool = True


class PurgeIn(Strict):
    trash: bool = Field(False, description="Empty the trash too (its pages leave for good).")


@router.post("/purge")
def memory_purge_post(body: PurgeIn, rt: RuntimeDep) -> dict[str, Any]:
    """Rewrite every derived store with its live content alone, so no byte of a
    forgotten item stays on disk: what was rewritten and the bytes freed."""
    return rt.memory.purge(body.trash)


@router.post("/forget")
def memory_forget_post(body: ForgetFactIn, rt: RuntimeDep, via: SurfaceDep) -> JSONResponse:
    """Erase page facts, buffered facts and profile lines, and what was derived
    only from them (a tombstone keeps no words)."""
    return JSONResponse(rt.memory.forget(body.what, body.page, body.all, via))


@router.post("/correct")
def correct_post(body: CorrectIn, rt: RuntimeDep) -> JSONResponse:
    """Supersede a fact with its corrected text (answered as built: a returned
    dict costs a second trip through the thread pool, behind the cards)."""
    return JSONResponse(rt.memory.correct(body.fact_id, body.text))


@router.get("/lineage/{what:path}")
def lineage_get(what: str, rt: RuntimeDep) -> dict[str, Any]:
    """What a fact, message, session, promotion, candidate or page was derived
    from, and what was derived from it."""
    return rt.memory.lineage(what)


@router.get("/history/{what:path}")
def history_get(what: str, rt: RuntimeDep) -> dict[str, Any]:
    """What changed on a page (slug) or about a fact (id), and through what."""
    return rt.memory.history(what)


@router.get("/pages/{slug:path}")
def page_get(slug: str, rt: RuntimeDep) -> dict[str, Any]:
    """A page's text and its content hash (an edit's precondition)."""
    return rt.memory.read_page(slug)


@router.post("/pages/write")
def page_write(body: WriteIn, rt: RuntimeDep) -> dict[str, Any]:
    return rt.memory.write_page(body.slug, body.content, body.overwrite, body.expected_sha256)


@router.post("/pages/edit")
def page_edit(body: EditIn, rt: RuntimeDep) -> dict[str, Any]:
    """A concurrent edit is refused (409), never lost."""
    return rt.memory.edit_page(body.slug, body.expected_sha256, body.new, body.old, body.section)


@router.post("/pages/move")
def page_move(body: MoveIn, rt: RuntimeDep) -> dict[str, Any]:
    return rt.memory.move_page(body.slug, body.to)


@router.post("/pages/delete")
def page_delete(body: SlugIn, rt: RuntimeDep) -> dict[str, Any]:
    """Into `memory/trash/`; restorable."""
    return rt.memory.delete_page(body.slug)


@router.post("/pages/restore")
def page_restore(body: RestoreIn, rt: RuntimeDep) -> dict[str, Any]:
    return rt.memory.restore_page(body.name)


@router.post("/pages/pin")
def page_pin(body: PinIn, rt: RuntimeDep) -> dict[str, Any]:
    return rt.memory.pin_page(body.slug, body.core)


@router.get("/problems")
def problems_get(rt: RuntimeDep, index: bool = False) -> dict[str, Any]:
    """What `memory doctor` finds: pages that do not parse, held facts, stale
    views, half-done changes, records that disagree with the profile; with
    `index=1` the index's checks too, against the index this service holds
    (what `memory doctor` asks while the service runs). Each with its fix."""
    from service.doctor import diagnose

    checks = rt.memory.index_problems if index else None
    return diagnose(rt.settings, store=False, index_checks=checks).as_json()


@router.get("/trash")
def trash_get(rt: RuntimeDep) -> dict[str, Any]:
    return {"trash": rt.memory.trash()}
