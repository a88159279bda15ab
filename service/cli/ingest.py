"""`memory ingest`: import ready-made pages from a folder or a manifest."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ingest import DirectorySource, IngestOptions, IngestReport, ManifestSource, Source
from service.cli.base import json_option, print_json, url_option, workspace_option
from service.cli.capabilities import cli_capabilities
from service.cli.target import target_for
from substrate import MaintainReport


@click.command()
@workspace_option
@url_option
@json_option
@click.argument("folder", required=False, metavar="[DIR | -]")
@click.option(
    "--manifest",
    type=click.Path(path_type=Path, dir_okay=False),
    help='JSON manifest {"pages": [{"slug", "content" | "path"}]}; paths relative to it.',
)
@click.option("--dry-run", is_flag=True, help="Validate and report; write and index nothing.")
@click.option("--overwrite", is_flag=True, help="Replace pages that already exist.")
@click.option(
    "--source",
    "provider",
    metavar="PROVIDER",
    help="Add `source: import:PROVIDER` to pages that have no source.",
)
@click.option(
    "--batch-size", type=click.IntRange(1), default=200, show_default=True, help="Pages per batch."
)
def ingest(
    workspace: Path,
    url: str | None,
    as_json: bool,
    folder: str | None,
    manifest: Path | None,
    dry_run: bool,
    overwrite: bool,
    provider: str | None,
    batch_size: int,
) -> None:
    """Import ready-made pages from DIR (every *.md), --manifest FILE, or - (manifest on stdin).

    Each page is validated on its own; a bad page fails alone and the command
    exits 1. Written pages are embedded before the command returns."""
    if (folder is None) == (manifest is None):
        raise click.UsageError("give a DIR, - (manifest on stdin) or --manifest FILE")
    options = IngestOptions(
        dry_run=dry_run, overwrite=overwrite, source=provider, batch_size=batch_size
    )
    target = target_for(workspace, url, cli_capabilities)
    done = target.ingest(_source(folder, manifest), options)
    if as_json:
        index = done.indexed.as_json() if done.indexed else None
        print_json({**done.report.as_json(), "index": index, "index_error": done.index_error})
    else:
        _print_ingest(done.report, done.indexed, done.index_error)
    if done.report.failed or done.index_error:
        sys.exit(1)


def _source(folder: str | None, manifest: Path | None) -> Source:
    if manifest is not None:
        return ManifestSource.from_file(manifest)
    if folder == "-":
        return ManifestSource(sys.stdin.read(), Path.cwd(), "stdin")
    return DirectorySource(Path(str(folder)))


def _print_ingest(
    report: IngestReport, indexed: MaintainReport | None, index_error: str | None
) -> None:
    for page in report.pages:
        label = page.slug or page.where
        if page.status == "failed":
            click.echo(f"failed   {label}: {page.error}  [{page.where}]", err=True)
        for warning in page.warnings:
            click.echo(f"warning  {label}: {warning}", err=True)
    totals = report.totals()
    if report.dry_run:
        done = f"{totals['would_write']} would be written"
    else:
        done = f"{totals['written']} written"
    click.echo(
        f"{'dry run: ' if report.dry_run else ''}{totals['pages']} pages from {report.source}: "
        f"{done}, {totals['skipped']} skipped, {totals['failed']} failed"
    )
    verdicts = [page.scan for page in report.pages if page.scan is not None]
    if report.dry_run and verdicts:
        quarantined = sum(1 for v in verdicts if v.quarantine)
        rejected = sum(1 for v in verdicts if not v.ok and not v.quarantine)
        click.echo(
            f"scanner (strict policy): {len(verdicts) - quarantined - rejected} ok, "
            f"{quarantined} would be quarantined, {rejected} rejected"
        )
    if indexed is not None:
        click.echo(
            f"indexed {indexed.embedded} pages ({indexed.chunks} chunks) in {indexed.seconds:.2f} s"
        )
    if index_error is not None:
        click.echo(
            f"error: pages were written but not indexed: {index_error}; "
            "rerun the ingest or `memory maintain` to index them",
            err=True,
        )
