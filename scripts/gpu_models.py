#!/usr/bin/env python3
"""The command; its code is scripts/infer_tools/gpu_models.py (--help says what it does)."""

from infer_tools.gpu_models import main

raise SystemExit(main())
