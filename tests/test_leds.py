"""The LED policy: roles to colours, hints vs warnings, blinking, game over."""

from __future__ import annotations

import pytest

from crownhead.firmware.app.leds import (
    ACTION_ROLES,
    BACKGROUND_ROLES,
    HINT_ROLES,
    ROLES,
    LedPolicy,
    LedSettings,
    Palette,
    parse_colour,
)
from helpers.colour_vision import MATRICES, MIN_DISTANCE, distance
from crownhead.rules import Position, Result

PAL = Palette()


def test_every_tracker_role_is_classified_once() -> None:
    tracker_roles = {
        "touched",
        "target",
        "capture",
        "must-capture",
        "next-jump",
        "remove",
        "missing",
        "extra",
        "crown",
        "move-from",
        "move-path",
        "move-to",
        "error",
        "king",
        "last-from",
        "last-to",
        "huff",
    }
    assert tracker_roles == ROLES
    groups = [HINT_ROLES, ACTION_ROLES, BACKGROUND_ROLES]
    for a in groups:
        for b in groups:
            if a is not b:
                assert not a & b
    for role in ROLES:
        PAL.colour(role)  # every role has a colour


def test_hints_are_steady_full_colour() -> None:
    policy = LedPolicy()
    roles = {11: "touched", 15: "target", 16: "target"}
    for t in (0, 60, 130, 400, 10_000):
        assert policy.frame(roles, now_ms=t) == {
            11: PAL.touched,
            15: PAL.target,
            16: PAL.target,
        }
    assert policy.next_change(400) is None


def test_hints_off_keeps_actions_and_drops_hints() -> None:
    policy = LedPolicy(LedSettings(hints=False))
    roles = {
        22: "touched",
        15: "target",
        18: "capture",
        9: "must-capture",
        26: "remove",
        24: "next-jump",
        1: "crown",
    }
    frame = policy.frame(roles, now_ms=0)
    assert frame == {22: PAL.touched, 26: PAL.remove, 24: PAL.next_jump, 1: PAL.crown}


def test_referee_never_shows_hints_even_on_the_hint_button() -> None:
    policy = LedPolicy(LedSettings(hints=True), referee=True)
    policy.reveal_hints()
    assert policy.frame({15: "target", 9: "must-capture"}, now_ms=0) == {}
    assert policy.frame({5: "missing", 6: "extra"}, now_ms=0) == {5: PAL.missing, 6: PAL.extra}


def test_hint_button_reveals_hints_for_one_turn() -> None:
    policy = LedPolicy(LedSettings(hints=False))
    roles = {9: "must-capture"}
    assert policy.frame(roles, now_ms=0) == {}
    policy.reveal_hints()
    assert policy.frame(roles, now_ms=10) == {9: PAL.must_capture}
    policy.turn_changed()
    assert policy.frame(roles, now_ms=20) == {}


def test_warning_squares_blink_fast_from_the_on_phase() -> None:
    policy = LedPolicy(LedSettings(blink_ms=250))
    roles = {9: "must-capture", 10: "must-capture", 22: "touched"}
    # The warning starts at t=1000: its squares are lit at once, dark 125 ms later.
    on = policy.frame(roles, now_ms=1000, warning_squares=[9, 10])
    assert on == {9: PAL.must_capture, 10: PAL.must_capture, 22: PAL.touched}
    assert policy.next_change(1000) == 1125
    off = policy.frame(roles, now_ms=1125, warning_squares=[9, 10])
    assert off == {22: PAL.touched}
    assert policy.frame(roles, now_ms=1250, warning_squares=[9, 10]) == on
    assert policy.next_change(1300) == 1375
    # Warning over: steady again, nothing pending.
    assert policy.frame(roles, now_ms=1400) == on
    assert policy.next_change(1400) is None


def test_warned_hints_blink_even_with_hints_off() -> None:
    # Forced capture: the pieces that can capture are shown when the player lifts one
    # that cannot, hints or not.
    policy = LedPolicy(LedSettings(hints=False))
    roles = {9: "must-capture", 22: "touched"}
    assert policy.frame(roles, now_ms=0) == {22: PAL.touched}
    assert policy.frame(roles, now_ms=5, warning_squares=[9]) == {22: PAL.touched, 9: PAL.must_capture}


def test_error_role_blinks_and_roleless_warned_square_uses_error_colour() -> None:
    policy = LedPolicy()
    frame = policy.frame({14: "error"}, now_ms=0, warning_squares=[18])
    assert frame == {14: PAL.error, 18: PAL.error}
    assert policy.blinking == {14, 18}
    assert policy.frame({14: "error"}, now_ms=125, warning_squares=[18]) == {}


def test_new_warning_restarts_blink_phase() -> None:
    policy = LedPolicy(LedSettings(blink_ms=200))
    policy.frame({}, now_ms=0, warning_squares=[1])
    assert policy.frame({}, now_ms=100, warning_squares=[1]) == {}
    # A different warning appears during the dark half: it shows at once.
    assert policy.frame({}, now_ms=150, warning_squares=[2]) == {2: PAL.error}


def test_background_roles_are_dim_and_under_everything() -> None:
    policy = LedPolicy(LedSettings(background=0.1))
    frame = policy.frame({5: "king", 11: "last-from", 15: "last-to"}, now_ms=0)
    assert max(frame[5]) == 26 and frame[5][0] == 0
    assert max(frame[11]) == 26 and max(frame[15]) == 26
    assert all(c > 0 for c in frame[11])


def test_brightness_scales_every_colour() -> None:
    policy = LedPolicy(LedSettings(brightness=0.5))
    assert policy.frame({15: "target"}, now_ms=0) == {15: (0, 60, 128)}


def test_game_over_lights_winner_pieces() -> None:
    policy = LedPolicy()
    pos = Position.from_fen("W:W:B14,K19")  # White has no piece: Black won
    frame = policy.frame({}, now_ms=0, result=Result("1-0", "no-moves"), position=pos)
    assert frame == {14: PAL.win, 19: PAL.win}


def test_game_over_draw_lights_every_piece_and_roles_stay_on_top() -> None:
    policy = LedPolicy()
    pos = Position.from_fen("W:WK28:BK1")
    frame = policy.frame(
        {1: "king", 28: "king", 5: "missing"}, now_ms=0, result=Result("1/2-1/2", "agreement"), position=pos
    )
    assert frame == {1: PAL.draw, 28: PAL.draw, 5: PAL.missing}


def test_game_over_with_cleared_board_lights_winner_home_rows() -> None:
    policy = LedPolicy()
    frame = policy.frame({}, now_ms=0, result=Result("0-1", "resign"), position=Position.empty())
    assert sorted(frame) == list(range(21, 33))


def test_unknown_role_stays_dark() -> None:
    assert LedPolicy().frame({3: "sparkle"}, now_ms=0) == {}


@pytest.mark.parametrize(
    ("value", "expected"),
    [("#0078ff", (0, 120, 255)), ("FF6400", (255, 100, 0)), ([1, 2, 3], (1, 2, 3))],
)
def test_parse_colour(value: object, expected: tuple[int, int, int]) -> None:
    assert parse_colour(value) == expected


@pytest.mark.parametrize("value", ["red", "#12345", [1, 2], [1, 2, 256], [1, 2, True], 7])
def test_parse_colour_refuses_with_name(value: object) -> None:
    with pytest.raises(ValueError, match=r"palette\.target"):
        parse_colour(value, "palette.target")


def test_palette_from_mapping() -> None:
    pal = Palette.from_mapping({"must-capture": "#00ff00", "target": [1, 2, 3]})
    assert pal.must_capture == (0, 255, 0) and pal.target == (1, 2, 3)
    assert pal.remove == Palette().remove
    with pytest.raises(ValueError, match="unknown role 'sparkle'"):
        Palette.from_mapping({"sparkle": "#000000"})


@pytest.mark.parametrize("kwargs", [{"brightness": 1.5}, {"brightness": -0.1}, {"background": "x"}, {"blink_ms": 5}])
def test_bad_settings_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        LedSettings(**kwargs)  # type: ignore[arg-type]


def test_default_palette_is_colour_blind_safe() -> None:
    """Roles a player must tell apart stay apart for colour-blind players.

    The pairs that share a moment on the board must stay apart in every simulation of
    colour blindness (tests/helpers/colour_vision.py).
    """

    pairs = [
        ("target", "capture"),
        ("target", "must-capture"),
        ("touched", "target"),
        ("missing", "extra"),
        ("next-jump", "remove"),
        ("move-from", "move-to"),
        ("crown", "target"),
        ("crown", "capture"),
        ("crown", "must-capture"),
        ("touched", "capture"),
        ("capture", "must-capture"),
        ("crown", "touched"),
    ]
    for vision in MATRICES:
        for a, b in pairs:
            apart = distance(PAL.colour(a), PAL.colour(b), vision)
            assert apart > MIN_DISTANCE, (vision, a, b, apart)
    # And a sanity check that the test can fail: purple and blue merge for deuteranopes.
    assert distance((200, 0, 255), (0, 120, 255), "deuteranopia") < MIN_DISTANCE
