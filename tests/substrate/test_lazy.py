"""A lazy package root exports each declared name and loads only its room."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from substrate import lazy

ROOTS = ("substrate", "substrate.index")


@pytest.mark.parametrize("package", ROOTS)
def test_every_declared_name_resolves_to_its_modules_object(package: str) -> None:
    module = importlib.import_module(package)
    homes = lazy.declared(str(module.__file__))
    assert len(homes) > 20
    for name, home in homes.items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name), name


def test_an_undeclared_name_is_an_attribute_error_naming_it() -> None:
    import substrate

    with pytest.raises(AttributeError, match="'substrate' has no attribute 'Nope'"):
        substrate.Nope  # noqa: B018


def test_importing_the_root_loads_no_room_until_a_name_is_used() -> None:
    code = (
        "import sys, substrate; before = {'substrate.index', 'substrate.consolidation'} & set(sys.modules);"
        "substrate.Settings; after = 'substrate.config' in sys.modules;"
        "print(sorted(before), after, 'substrate.index' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "True", "False"]
