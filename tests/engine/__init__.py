"""Tests of the rules engine (engine/): rules R1-R13, formats, CLIs, conformance, speed paths."""
