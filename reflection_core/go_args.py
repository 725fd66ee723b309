"""What a `go test` command line names: its package patterns, its flags' values left out.

Shared by the Stop hook's command reading and `reflection run`'s partial-run check, so
`go test -count 1 ./...` is a whole-module run in both and `go test ./calc/...` a run of
some packages in both.
"""

from __future__ import annotations

from collections.abc import Sequence

# `go test` flags that take a value as the next argument (`-count 1`, `-tags integration`).
VALUE_FLAGS = frozenset(
    {
        *("run", "skip", "bench", "benchtime", "count", "cpu", "timeout", "tags", "p"),
        *("coverprofile", "coverpkg", "covermode", "parallel", "o", "exec", "ldflags"),
        *("gcflags", "shuffle", "memprofile", "cpuprofile", "blockprofile", "mutexprofile"),
        *("trace", "outputdir", "fuzz", "fuzztime", "vet", "mod", "modfile", "test.run"),
    }
)
# Package patterns that name the whole module (or, as `go test` alone does, the package
# the command runs in).
WHOLE_MODULE = frozenset(("./...", "...", "all", "."))


def package_args(args: Sequence[str]) -> list[str]:
    """The package arguments after `go test` (`./calc/...`, `./auth`); what follows
    `-args` goes to the test binary."""
    packages: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "-args":
            break
        elif arg.startswith("-"):
            skip = "=" not in arg and arg.lstrip("-") in VALUE_FLAGS
        else:
            packages.append(arg)
    return packages


def names_some_packages(args: Sequence[str]) -> bool:
    """`go test` run on named packages only, not on the whole module."""
    packages = package_args(args)
    return bool(packages) and not any(p in WHOLE_MODULE for p in packages)
