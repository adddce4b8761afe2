"""The board speaks: moves, warnings, guidance, rulings, the clock and the position, aloud.

:mod:`~firmware.voice.utterance` (what to say: a kind, a catalogue key, arguments),
:mod:`~firmware.voice.catalogue` (the sentences of each language, ``lang/*.toml``),
:mod:`~firmware.voice.queue` (a warning first, no move dropped, chatter bounded),
:mod:`~firmware.voice.engine` (eSpeak NG's command line, Piper where its voice is present),
:mod:`~firmware.voice.speaker` (a worker thread: the main loop never waits for speech) and
:mod:`~firmware.voice.adapter`, the only module that reads the application's events and
game: it turns them into utterances and answers the requests (the last move, the position).
See ``docs/voice.md``.
"""
