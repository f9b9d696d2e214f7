#!/usr/bin/env bash
# Quick start on a fresh machine: install, build, and generate an evaluation harness for the
# bundled example spec with the offline provider (no key, no network), then inspect the spec.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export npm_config_ignore_scripts=false
npm ci --no-audit --no-fund
npm run build
echo
echo "== Schema-complexity profile of the example spec"
node dist/cli.js inspect examples/filesystem.json
echo
echo "== Generating an evaluation harness (offline provider)"
node dist/cli.js generate examples/filesystem.json --out evals/filesystem --seed 1
echo
echo "== Judging it (offline judge: exact schema checks and value grounding; --judge gemini for the paper's LLM judge)"
node dist/cli.js judge evals/filesystem
echo
echo "== Reporting"
node dist/cli.js report evals/filesystem --format html --out evals/filesystem/report.html
node dist/cli.js report evals/filesystem --format md --out evals/filesystem/report.md
echo
echo "== What the exact judge found (from evals/filesystem/report.md)"
# The headline (with what the exact score covers and cannot see) and notes, then the value
# grounding, the exact argument score by sub-dimension and the failing records with the argument
# at fault: the exact tables, up to the next heading that is not one of them.
sed -n '/^- /p; /^> - /p' evals/filesystem/report.md | head -n 12
awk '/^### Value grounding \(exact\)/ { p = 1 } p && /^##/ && !/\(exact\)|^### Exact argument/ { exit } p' evals/filesystem/report.md
echo
echo "The harness is in evals/filesystem/: manifest.json, spec.json and one JSON file per scenario in records/;"
echo "the report is evals/filesystem/report.html (open it in a browser) and report.md."
echo "Look at it with:  ls evals/filesystem/records | head;  cat evals/filesystem/manifest.json"
echo "In VS Code, open this folder: the Agent Seer sidebar lists the spec and the harness."
