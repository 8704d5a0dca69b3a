"""Prints the form fields of a PDF."""
import sys

for line in open(sys.argv[1], "rb"):
    if b"/T (" in line:
        print(line.split(b"/T (")[1].split(b")")[0].decode())
