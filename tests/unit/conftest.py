import sys
from pathlib import Path

# Make lab/ importable as plain modules.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "lab"))
