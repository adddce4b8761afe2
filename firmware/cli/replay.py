"""``crownhead replay``: run a script of hand actions on the simulated board, print events.

The script (:mod:`crownhead.firmware.simulator.script`) drives the simulated board through the
same debouncer, controller and tracker as the hardware, on a virtual clock, starting with
the position already standing on the board. Output is JSON Lines, one event per line;
the last line is the ``final`` event. The format is documented in ``docs/replay.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from crownhead.firmware.cli._common import add_rules_arguments, position_from_args, rules_from_args
from crownhead.firmware.cli._hall import add_hall_arguments, hall_from_args, publish_replay
from crownhead.firmware.cli._voice import add_speech_arguments, voice_config, voice_settings
from crownhead.firmware.config import ConfigError, load_config
from crownhead.firmware.events import Event, event_line
from crownhead.firmware.referee.arbiter import add_referee_arguments, referee_from_args
from crownhead.firmware.files import FileRefused
from crownhead.firmware.simulator.script import ScriptError, iter_replay, iter_script, read_script, script_buttons
from crownhead.firmware.tracking.policy import TRACKER_MODES
from crownhead.firmware.voice.adapter import Narrator, Seen
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.firmware.voice.speaker import SentenceRecorder, Speaker, open_speaker
from crownhead.rules import Game, Position

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="run a script of lift/place/wait/press lines on the simulated board",
        description=(
            "Run SCRIPT (lift S, place S, wait MS, press NAME, hold NAME (a long press); # comments) against the "
            "simulated board through the same debouncer and tracker as the hardware, on a "
            "virtual clock, and print the events as JSON Lines; the last line is "
            '{"event":"final",...}. SCRIPT may be - for standard input.'
        ),
    )
    p.add_argument("script", metavar="SCRIPT", help="the script file, or - for standard input")
    p.add_argument("--fen", help="the position standing on the board at the start (default: the start position)")
    p.add_argument("--mode", choices=sorted(TRACKER_MODES), default="play", help="play (default) or referee")
    p.add_argument("--lights", action="store_true", help="also print the LED picture each time it changes")
    add_hall_arguments(p)
    add_referee_arguments(p)
    add_rules_arguments(p)
    add_speech_arguments(p, out=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = args.script
    try:
        text = read_script(name)
    except FileRefused as exc:
        print(f"crownhead replay: cannot read {exc}", file=sys.stderr)
        return 2
    where = "<stdin>" if name == "-" else name
    try:
        # Every line checked before the first event; the actions are then read again as
        # the replay goes, never held as a list (a 4 MB script has 400,000 of them).
        buttons = script_buttons(text)
    except ScriptError as exc:
        print(f"crownhead replay: {where}: {exc}", file=sys.stderr)
        return 2
    position = position_from_args(args)
    if position is None:
        return 2
    try:
        referee = referee_from_args(args, args.mode, position, rules_from_args(args))
    except ValueError as exc:
        print(f"crownhead replay: {exc}", file=sys.stderr)
        return 2
    try:
        hall = hall_from_args(args)
    except ValueError as exc:
        print(f"crownhead replay: {exc}", file=sys.stderr)
        return 2
    try:
        voice = _Voice.from_args(args, position)
    except (ValueError, RuntimeError) as exc:
        print(f"crownhead replay: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    played: list[Event] = []
    try:
        # The voice hears the lights (the hint) even when they are not printed.
        for event in iter_replay(
            iter_script(text),
            position,
            rules_from_args(args),
            args.mode,
            lights=args.lights or voice is not None,
            referee=referee,
            seen=voice.see if voice is not None else None,
            buttons=buttons,
        ):
            if voice is not None:
                voice.hear(event)
                if event.kind == "lights" and not args.lights:
                    continue
            out.write(event_line(event) + "\n")
            if hall is not None and event.kind not in ("lights", "final"):
                played.append(event)
    except ScriptError as exc:
        out.flush()
        print(f"crownhead replay: {where}: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        out.flush()
        print(f"crownhead replay: {where}: {exc}", file=sys.stderr)
        return 2
    finally:
        if voice is not None:
            voice.close()
    out.flush()
    if hall is not None:
        return publish_replay(hall, played, args.fen, rules_from_args(args), referee=referee)
    return 0


class _Voice:
    """``--speech LANG`` (spoken, one sentence after another) and ``--speech-out DIR``
    (each sentence a WAV file and a line of ``DIR/sentences.jsonl``)."""

    def __init__(
        self, narrator: Narrator, phrasebook: Phrasebook, recorder: SentenceRecorder | None, speaker: Speaker | None
    ) -> None:
        self.narrator = narrator
        self.phrasebook = phrasebook
        self.recorder = recorder
        self.speaker = speaker

    @classmethod
    def from_args(cls, args: argparse.Namespace, position: Position) -> _Voice | None:
        """None without ``--speech``; ValueError or RuntimeError naming the problem."""
        if args.speech_out and not args.speech:
            raise ValueError("--speech-out needs --speech LANG")
        if not args.speech:
            return None
        try:
            config = voice_config(load_config(None), args)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        from crownhead.firmware.voice.engine import SpeechUnavailable, open_engine

        phrasebook = Phrasebook(config.language, config.black_language, config.white_language, config.speak)
        narrator = Narrator(Seen(position, (), rules_from_args(args)))
        try:
            if args.speech_out:
                engine = open_engine(config.engine, config.piper_voices)
                return cls(
                    narrator, phrasebook, SentenceRecorder(engine, Path(args.speech_out), voice_settings(config)), None
                )
        except SpeechUnavailable as exc:
            raise RuntimeError(str(exc)) from None
        except OSError as exc:
            raise RuntimeError(f"cannot write {args.speech_out}: {exc.strerror or exc}") from None
        speaker, missing = open_speaker(
            config.engine, config.piper_voices, voice_settings(config), device=config.device, background=False
        )
        if speaker is None:
            raise RuntimeError(missing)
        return cls(narrator, phrasebook, None, speaker)

    def see(self, game: Game) -> None:
        """The replayed board's game after a step: shown to the narrator when it changed."""
        shown = self.narrator.game
        if game.position != shown.position or len(game.moves) != len(shown.moves) or game.rules != shown.rules:
            self.narrator.see(Seen.of(game))

    def hear(self, event: Event) -> None:
        for sentence in self.phrasebook.sentences(self.narrator.hear(event)):
            if self.recorder is not None:
                self.recorder.record(event.t, sentence)
            if self.speaker is not None:
                self.speaker.say(sentence)
                while self.speaker.pump():
                    pass

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()
        if self.speaker is not None:
            for message in self.speaker.poll():
                print(f"crownhead replay: {message}", file=sys.stderr)
            self.speaker.close()
