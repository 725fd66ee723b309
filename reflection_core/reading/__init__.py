"""Readers: the one seam where a stop decision reads words.

A reader turns an evidence digest (the task prompt, the final message and the facts the
transcript proved) into a `Reading`: semantic facts with a confidence. A reader never
returns a verdict; the decision combines its facts with the evidence, and evidence wins.
"""
