#!/usr/bin/env python3
"""The command; its code is scripts/infer_tools/cuda_plan_exec.py (--help says what it does)."""

from infer_tools.cuda_plan_exec import main

raise SystemExit(main())
