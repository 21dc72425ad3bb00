"""Frobnicate: twiddle the knobs of small text files."""

__version__ = "0.3.1"


def frob(text, level=1):
    """Return *text* frobnicated *level* times.

    Each pass swaps the case of every vowel.

    :param text: the input string
    :param level: how many passes to run
    :returns: the frobnicated string
    """
    for _ in range(level):
        text = "".join(c.swapcase() if c.lower() in "aeiou" else c for c in text)
    return text


class Knob:
    """A single adjustable knob.

    :param name: the knob's label
    :param value: its starting position, 0 to 11
    """

    def __init__(self, name, value=0):
        self.name = name
        self.value = value

    def turn(self, steps=1):
        """Turn the knob by *steps*, clamped to the range 0..11."""
        self.value = max(0, min(11, self.value + steps))
        return self.value
