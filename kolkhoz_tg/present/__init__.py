"""What the game says, in the reader's language: every sentence and keyboard of the front ends.

Everything here takes the service's records (:mod:`kolkhoz_tg.service.records`) and a
:class:`~kolkhoz_tg.i18n.Translator` and returns text or a :class:`Message` (text plus a
neutral :data:`Keyboard` of :class:`Button` rows). Nothing here imports Telegram
(``tests/test_layering.py``): :mod:`kolkhoz_tg.bot.app` turns keyboards into markup, and the
terminal front end prints the same text. Handlers choose a message; they never compose one.
Only cards in the given view can appear (STYLE.md, "Views are the only window"). Messages
are sent as plain text (no parse mode), so a player's name can never break or inject markup.

By subject (docs/bot.md has the map of which screen comes from which module):

- :mod:`.keyboard`: the neutral :class:`Button`, :data:`Keyboard`, :class:`Message`;
- :mod:`.words`: cards, suits, jobs, seat names, lists, the deep link, levels;
- :mod:`.rules`: presets, the rules line and house rules, the full rules text;
- :mod:`.board`: the group's board (text, picture caption, tricks, the winners);
- :mod:`.hand`: a seat's private message, its prompt and keyboard;
- :mod:`.events`: move and event lines, the requisition, notifications, the final table;
- :mod:`.errors`: refused moves and service errors in words;
- :mod:`.lobby`: the lobby message and its rules and level menus;
- :mod:`.manage`: the house rules, years and time menus, /abort and /kick;
- :mod:`.stats`: ratings, house-rule games, the game log;
- :mod:`.hints`: a computer player's advice in one line (practice games);
- :mod:`.practice`: practice games' level buttons, the rules' chapters in private;
- :mod:`.commands`, :mod:`.taps`, :mod:`.settings`, :mod:`.people`, :mod:`.topics`: the
  replies of the commands, of taps and inline choices, of the chat's settings, of a
  player's own settings and /away, and about a game's forum topic.

The names the delivery, the terminal and several handlers share are gathered here, so a
caller writes ``present.board_message(...)``; the replies of one handler module are reached through
their own module (``from kolkhoz_tg.present import commands as say``).
"""

from __future__ import annotations

from kolkhoz_tg.present.board import (
    board_caption,
    board_message,
    board_text,
    caption_text,
    trick_lines,
    turn_order,
    waiting_text,
    winners_line,
)
from kolkhoz_tg.present.errors import (
    HAND_REASONS,
    REASONS,
    error_text,
    no_game_in_play,
    no_open_game,
    only_creator_or_admin,
    reason_text,
    result_text,
)
from kolkhoz_tg.present.events import (
    YEAR_END_EVENTS,
    card_action,
    event_lines,
    event_text,
    final_table,
    notification_text,
    requisition_lines,
    time_extended,
    timed_out_text,
    took_back_text,
    year_summary,
)
from kolkhoz_tg.present.hand import (
    BUTTON_WIDTH,
    TRUMP_MARKS,
    action_label,
    assign_button,
    group_keyboard,
    hand_text,
    jobs_line,
    last_trick,
    own_result,
    pass_lines,
    phase_prompt,
    private,
    private_keyboard,
    stood_in,
    trump_hints,
    trump_mark,
    visible_score,
    where,
)
from kolkhoz_tg.present.hints import (
    CLOSE_POINTS,
    HINT_LIMIT,
    assign_effect,
    chances_words,
    hint_line,
    move_words,
    reason_words,
)
from kolkhoz_tg.present.keyboard import MAX_CAPTION, MAX_TEXT, Button, Keyboard, Message
from kolkhoz_tg.present.lobby import lobby_level_menu, lobby_message, lobby_rules_menu, lobby_seat
from kolkhoz_tg.present.rich import board_rich
from kolkhoz_tg.present.rules import (
    PRESET_ORDER,
    full_rules,
    house_rules_text,
    levels_help,
    preset_button,
    preset_description,
    preset_title,
    rules_line,
    rules_title,
)
from kolkhoz_tg.present.stats import (
    HOUSE_GAMES_LISTED,
    chat_ratings,
    game_log,
    house_rule_games,
    log_not_yours,
    log_payload,
    log_summary,
    no_finished_game,
    player_ratings,
    rating_name,
)
from kolkhoz_tg.present.words import (
    SUIT_SYMBOLS,
    and_list,
    card,
    cards,
    deep_link,
    job_name,
    level_name,
    seat_name,
    seat_names,
)

__all__ = [
    "BUTTON_WIDTH",
    "CLOSE_POINTS",
    "HAND_REASONS",
    "HINT_LIMIT",
    "HOUSE_GAMES_LISTED",
    "MAX_CAPTION",
    "MAX_TEXT",
    "PRESET_ORDER",
    "REASONS",
    "SUIT_SYMBOLS",
    "TRUMP_MARKS",
    "YEAR_END_EVENTS",
    "Button",
    "Keyboard",
    "Message",
    "action_label",
    "and_list",
    "assign_button",
    "assign_effect",
    "board_caption",
    "board_message",
    "board_rich",
    "board_text",
    "caption_text",
    "card",
    "card_action",
    "cards",
    "chances_words",
    "chat_ratings",
    "deep_link",
    "error_text",
    "event_lines",
    "event_text",
    "final_table",
    "full_rules",
    "game_log",
    "group_keyboard",
    "hand_text",
    "hint_line",
    "house_rule_games",
    "house_rules_text",
    "job_name",
    "jobs_line",
    "last_trick",
    "level_name",
    "levels_help",
    "lobby_level_menu",
    "lobby_message",
    "lobby_rules_menu",
    "lobby_seat",
    "log_not_yours",
    "log_payload",
    "log_summary",
    "move_words",
    "no_finished_game",
    "no_game_in_play",
    "no_open_game",
    "notification_text",
    "only_creator_or_admin",
    "own_result",
    "pass_lines",
    "phase_prompt",
    "player_ratings",
    "preset_button",
    "preset_description",
    "preset_title",
    "private",
    "private_keyboard",
    "rating_name",
    "reason_text",
    "reason_words",
    "requisition_lines",
    "result_text",
    "rules_line",
    "rules_title",
    "seat_name",
    "seat_names",
    "stood_in",
    "time_extended",
    "timed_out_text",
    "took_back_text",
    "trick_lines",
    "trump_hints",
    "trump_mark",
    "turn_order",
    "visible_score",
    "waiting_text",
    "where",
    "winners_line",
    "year_summary",
]
