"""Sizing model thread pools by the cores a container really has."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from substrate.config.cpus import cgroup_quota, usable_cpus


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="ascii")


@pytest.mark.parametrize(
    ("text", "cores"),
    [("200000 100000", 2), ("150000 100000", 2), ("50000 100000", 1), ("max 100000", None)],
)
def test_cgroup_v2_quota_is_rounded_up_to_whole_cores(
    tmp_path: Path, text: str, cores: int | None
) -> None:
    write(tmp_path / "cpu.max", text)
    assert cgroup_quota(tmp_path) == cores


def test_cgroup_v1_quota_and_its_unlimited_marker(tmp_path: Path) -> None:
    write(tmp_path / "cpu" / "cpu.cfs_period_us", "100000")
    write(tmp_path / "cpu" / "cpu.cfs_quota_us", "300000")
    assert cgroup_quota(tmp_path) == 3
    write(tmp_path / "cpu" / "cpu.cfs_quota_us", "-1")
    assert cgroup_quota(tmp_path) is None


def test_no_or_garbled_cgroup_files_mean_no_quota(tmp_path: Path) -> None:
    assert cgroup_quota(tmp_path) is None
    write(tmp_path / "cpu.max", "lots of cpu")
    assert cgroup_quota(tmp_path) is None


def test_a_quota_below_the_visible_cores_wins(tmp_path: Path) -> None:
    write(tmp_path / "cpu.max", "100000 100000")
    assert usable_cpus(tmp_path) == 1


def test_without_a_quota_the_affinity_mask_bounds_the_count(tmp_path: Path) -> None:
    assert usable_cpus(tmp_path) == len(os.sched_getaffinity(0))
    assert usable_cpus(tmp_path) <= (os.cpu_count() or 1)
