"""The exceptions of exporace: one base, :class:`ExporaceError`, and
subclasses that are also ``ValueError`` or ``TypeError``.

Every exception names the argument at fault in its message and in its
``argument`` attribute.

>>> import exporace
>>> try:
...     exporace.noise("no-such-model", seed=1, tokens=3)
... except exporace.ExporaceValueError as e:
...     print(e.argument)
model
"""

from __future__ import annotations

__all__ = ["ExporaceError", "ExporaceValueError", "ExporaceTypeError"]


class ExporaceError(Exception):
    """The base of every exception exporace raises on purpose.

    ``argument`` names the argument at fault (``None`` where no single
    argument is).
    """

    def __init__(self, message: str, argument: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument


class ExporaceValueError(ExporaceError, ValueError):
    """An argument of the right type whose value is refused: NaN where a
    number is needed, a seed or position out of range, a shape that does not
    match, an unknown model name."""


class ExporaceTypeError(ExporaceError, TypeError):
    """An argument of the wrong type or dtype: a float seed, float16 logits,
    a tensor on a GPU, a string where an array is needed."""
