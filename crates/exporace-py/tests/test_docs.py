"""Every docstring example of the package runs and gives what it shows."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import exporace
import exporace.errors
import exporace.testing


@pytest.mark.parametrize("module", [exporace, exporace.errors, exporace.testing])
def test_docstring_examples(module):
    result = doctest.testmod(module, extraglobs={"np": np, "exporace": exporace},
                             optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_every_public_function_has_docs_and_an_example():
    for name in exporace.__all__:
        obj = getattr(exporace, name)
        if callable(obj) and not isinstance(obj, type):
            assert obj.__doc__ and ">>>" in obj.__doc__, name
