"""The Pallas tests' fixtures live in pallas_cases.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pallas_cases import modules  # noqa: E402,F401
