"""The board speaks: moves, warnings, guidance, rulings, the clock and the position, aloud.

:mod:`~crownhead.firmware.voice.utterance` (what to say: a kind, a catalogue key, arguments),
:mod:`~crownhead.firmware.voice.catalogue` (the sentences of each language, ``lang/*.toml``),
:mod:`~crownhead.firmware.voice.queue` (a warning first, no move dropped, chatter bounded),
:mod:`~crownhead.firmware.voice.engine` (eSpeak NG's command line, Piper where its voice is present),
:mod:`~crownhead.firmware.voice.speaker` (a worker thread: the main loop never waits for speech) and
:mod:`~crownhead.firmware.voice.adapter`, the only module that reads the application's events and
game: it turns them into utterances and answers the requests (the last move, the position).
See ``docs/voice.md``.
"""
