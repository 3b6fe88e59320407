#!/usr/bin/env python3
"""The command; its code is scripts/infer_tools/engine_weights.py (--help says what it does)."""

from infer_tools.engine_weights import main

raise SystemExit(main())
