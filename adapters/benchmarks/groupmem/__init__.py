"""GroupMemBench: multi-party group chat memory (four domains, six question kinds).

`loader` reads the released layout unchanged into a Dataset; `schema` and `files` validate it;
`check` counts what a release holds; `synth` and `write` make releases in the same layout.
"""
