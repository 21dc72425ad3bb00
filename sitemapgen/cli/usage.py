"""How the command line explains its own use: help that reads whole at 80 columns, and what an
unknown option is taken for.

Help is click's plain layout, as MkDocs and pip print theirs: an option and what to write after
it (its metavar, `URL`, `DIR`, `N`, never a Python type) on the left, its help wrapped on the
right or, when the left is wide, on the lines below; nothing is cut at any width. Arguments are
named by their metavar in the usage line and in their own section. `sitemapgen` alone prints the
help once, as a usage error.
"""

from __future__ import annotations

import difflib
import inspect
import textwrap
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, cast

import typer
from typer.core import TyperCommand, TyperGroup

from sitemapgen.cli.exits import EXIT_BAD_INPUT
from sitemapgen.config.declare import Panel, settings_of
from sitemapgen.config.loader import FILE_KEYS
from sitemapgen.config.settings import Config
from sitemapgen.util.streams import echo

if TYPE_CHECKING:  # typer's own click, for the types of the methods overridden here
    from typer._click import Context, HelpFormatter, Parameter
    from typer._click.exceptions import NoSuchOption


#: The order `sitemapgen --help` lists the commands in.
COMMAND_ORDER = ("build", "check", "list", "explain", "validate", "verify", "diff", "indexnow")


def close_options(typed: str, known: Iterable[str]) -> list[str]:
    """The long options in `known` that `typed` (an unknown ``--option``) was likely meant as: those
    it starts (``--max``), then the closest that read alike once the dashes in front are set aside
    (difflib's cutoff, 0.6, and within 0.1 of the closest: ``--foo`` is not ``--out``, and
    ``--lastmod-fromat`` is ``--lastmod-format``, not ``--lastmod``); none when nothing is close."""
    names = {option[2:]: option for option in known if option.startswith("--")}
    word = typed[2:]
    if not typed.startswith("--") or not word:
        return []
    starts = [option for name, option in names.items() if len(word) >= 2 and name.startswith(word)]
    ratios = sorted(((difflib.SequenceMatcher(None, word, name).ratio(), name) for name in names), reverse=True)
    floor = max(0.6, ratios[0][0] - 0.1) if ratios else 1.0
    alike = [names[name] for ratio, name in ratios[:3] if ratio >= floor]
    return list(dict.fromkeys([*starts, *alike]))


def _parsed(
    parse: Callable[[], list[str]], params: Iterable[Parameter], elsewhere: Iterable[Parameter] = ()
) -> list[str]:
    """`parse()`, with its errors in the user's words:

    - an unknown long option says which of `params`' options it was likely meant as, in the words
      typer uses for a command (". Did you mean --out?"), or none: click's own guess counts the two
      dashes in front as likeness; failing that, that it is a config key with no flag (``--exclude``),
      or an option of `build` alone (`elsewhere`: ``check --robots-txt``);
    - a value not among an option's choices is said once, with the close one (``--host netlfy``),
      not behind typer's "Value error," prefix.
    """
    try:
        return parse()
    except typer.TyperException as e:
        option = getattr(e, "option_name", None)
        if isinstance(option, str) and hasattr(e, "possibilities"):  # click's NoSuchOption
            cast("NoSuchOption", e).possibilities = None
            known = [opt for param in params for opt in (*param.opts, *param.secondary_opts)]
            elsewhere_said = _not_here(option, [*params, *elsewhere])  # --exclude: not a typo of --include
            meant = [] if elsewhere_said else close_options(option, known)
            if meant:
                listed = meant[0] if len(meant) == 1 else f"{', '.join(meant[:-1])} or {meant[-1]}"
                e.message = f"{e.message}. Did you mean {listed}?"
            e.message += elsewhere_said
        elif isinstance(message := getattr(e, "message", None), str) and " is not one of " in message:
            e.message = _not_a_choice(message)
        raise


def _not_here(option: str, params: Iterable[Parameter]) -> str:
    """Why `option` is not an option here, when it is something else: an option of other commands
    (``list --chunking``: build and check's), or a config key that no flag sets (``--exclude``; not
    ``--out-dir``, which `params`, this command's and build's, set as ``--out``)."""
    flag = next(
        (s.declared.flag for s in settings_of(Config) if s.declared.flag and s.declared.flag.name == option), None
    )
    if flag is not None:
        return f": it is an option of sitemapgen {' and '.join(flag.commands)} only; leave it out here"
    if any(option in param.opts or option in param.secondary_opts for param in params):
        return ": it is an option of sitemapgen build only; leave it out here"
    key = option.removeprefix("--").replace("-", "_")
    if key in FILE_KEYS and all(param.name != key for param in params):
        return f": {key} has no flag; set it in sitemapgen.toml ({key} = ...) or [tool.sitemapgen]"
    return ""


def _not_a_choice(message: str) -> str:
    """typer's "Value error, 'netlfy' is not one of 'plain', 'netlify'." as "'netlfy' is not one of
    'plain', 'netlify' (did you mean 'netlify'?)"."""
    text = message.removeprefix("Value error, ").rstrip(".")
    given, _, listed = text.partition(" is not one of ")
    choices = [choice.strip().strip("'") for choice in listed.split(",")]
    word = given.strip("'").lower()
    close = [choice for choice in choices if word and choice.startswith(word)][:1]
    close = close or difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return text + (f" (did you mean {close[0]!r}?)" if close else "")


def _wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width`, never breaking a word: not at a hyphen (``--changes-file``,
    ``sitemap-N.xml.gz`` stay whole) nor because it is long."""
    return textwrap.wrap(text, max(width, 10), break_on_hyphens=False, break_long_words=False) or [""]


def _write_sections(formatter: HelpFormatter, sections: Iterable[tuple[str, list[tuple[str, str]]]]) -> None:
    """Each section as click writes one (a heading, then each name with its help wrapped beside it,
    or below it when the name is longer than 30), in `_wrap`'s lines."""
    for title, rows in sections:
        if not rows:
            continue
        with formatter.section(title):
            indent = " " * formatter.current_indent
            column = min(max(len(name) for name, _ in rows), 30) + 2
            for name, text in rows:
                lines = _wrap(text, formatter.width - len(indent) - column)
                if len(name) + 2 > column:
                    formatter.write(f"{indent}{name}\n")
                    lines[0] = " " * column + lines[0]
                else:
                    lines[0] = name.ljust(column) + lines[0]
                lines[1:] = [" " * column + line for line in lines[1:]]
                formatter.write("".join(f"{indent}{line}".rstrip() + "\n" for line in lines))


def _argument_name(param: Parameter) -> str:
    name = param.metavar or (param.name or "").upper()
    return f"{name}..." if param.nargs != 1 else name


def _panel(param: Parameter) -> str:
    """The help panel `param` is shown in: the one it was declared in, else the first."""
    return getattr(param, "rich_help_panel", None) or Panel.MAIN.value


def _option_rows(ctx: Context, params: Iterable[Parameter]) -> list[tuple[str, str]]:
    return [record for p in params if p.param_type_name == "option" and (record := p.get_help_record(ctx)) is not None]


class Command(TyperCommand):
    """A command whose help names arguments by their metavar (``DOCROOT``, ``SITEMAP...``), not as
    ``{docroot}`` with a ``<path>`` type, and reads whole at 80 columns."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        build = ctx.parent.command.get_command(ctx.parent, "build") if ctx.parent else None  # type: ignore[attr-defined]
        elsewhere = build.get_params(ctx) if build is not None and build is not self else []
        return _parsed(lambda: super(Command, self).parse_args(ctx, args), self.get_params(ctx), elsewhere)

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_help_text(self, ctx: Context, formatter: HelpFormatter) -> None:
        if self.help:
            formatter.write_paragraph()
            indent = " " * (formatter.current_indent + formatter.indent_increment)
            paragraphs = inspect.cleandoc(self.help).split("\n\n")
            formatter.write(
                "\n".join(
                    "".join(f"{indent}{line}\n" for line in _wrap(paragraph, formatter.width - len(indent)))
                    for paragraph in paragraphs
                )
            )

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        """Arguments, then the options in their help panels (`Panel`'s order)."""
        params = self.get_params(ctx)
        arguments = [
            (_argument_name(p), getattr(p, "help", None) or "") for p in params if p.param_type_name == "argument"
        ]
        panels = [panel.value for panel in Panel]
        sections = [(title, _option_rows(ctx, (p for p in params if _panel(p) == title))) for title in panels]
        _write_sections(formatter, [("Arguments", arguments), *sections])


class Group(TyperGroup):
    """The `sitemapgen` group: alone, it prints its help once (exit 2, a usage error); its commands
    are listed with their whole first paragraph, not one cut to fit."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            echo(ctx.get_help())
            ctx.exit(EXIT_BAD_INPUT)
        return _parsed(lambda: super(Group, self).parse_args(ctx, args), self.get_params(ctx))

    def list_commands(self, ctx: Context) -> list[str]:
        """The commands in the order a user meets them (the README's): write, check the result,
        look closer, then the deploy's."""
        names = super().list_commands(ctx)
        return sorted(names, key=lambda name: COMMAND_ORDER.index(name) if name in COMMAND_ORDER else len(names))

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        commands = [(name, self.commands[name]) for name in self.list_commands(ctx)]
        rows = [(name, cmd.short_help or (cmd.help or "").split("\n\n")[0]) for name, cmd in commands if not cmd.hidden]
        _write_sections(formatter, [("Options", _option_rows(ctx, self.get_params(ctx))), ("Commands", rows)])
