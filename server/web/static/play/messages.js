// The server's messages as the play page reads them (server/protocol.py, docs/protocol.md):
// JSDoc types only, checked by TypeScript (tsconfig.json, `tsc -p tsconfig.json` in
// scripts/test). Nothing imports this file at run time (a type is named in a comment:
// `import("./messages.js").State`), so the page never loads it (server/web/pages.py
// leaves it out of the preloaded modules). Dates and times are ISO 8601 text.

/** @typedef {1 | 2 | 4} SuitCount */
/** @typedef {"daily" | "practice" | "race"} Mode */
/** @typedef {"humans" | "new" | "bots"} BoardName */
/** @typedef {"open" | "countdown" | "racing" | "over" | "expired"} RoomState */
/** @typedef {string | number} MessageId */
/** For each column, for each group size from 1 card, the columns (from 1) it may go to.
 * @typedef {number[][][]} Placements */

/** @typedef {"en" | "pl" | "ru"} Language */
/** The settings kept on the account (`set_settings`): each left out is at its default.
 * @typedef {{four_colour?: boolean, auto_place?: boolean, sound?: boolean, card_size?: "normal" | "large"}} PlayerSettings */
/** @typedef {{name: string, created?: string | null, bot?: boolean, language?: Language | null, settings?: PlayerSettings | null}} Player */

/**
 * The whole state of one game.
 * @typedef {object} GameView
 * @property {string} game its id, for `resume`
 * @property {string} code
 * @property {SuitCount} suits
 * @property {Mode} mode
 * @property {string | null} [day] a daily's day
 * @property {string[]} board ten columns in board text, deepest card first
 * @property {number} moves
 * @property {number} score
 * @property {number} removed
 * @property {boolean} won
 * @property {boolean} finished
 * @property {boolean} can_undo
 * @property {number} seq bumps on every accepted action
 * @property {number} elapsed seconds by the server's clock
 * @property {number | null} [par] a daily's par, once the day is over
 * @property {string | null} [race] a race game: its room's code
 * @property {Placements | null} [legal] absent once finished
 */

/** @typedef {{type: "welcome", id?: MessageId, version: number, server_time: string, player?: Player | null, review_hours?: number | null}} Welcome */
/** @typedef {{type: "registered", id?: MessageId, player: Player, token: string}} Registered */
/** @typedef {{type: "authenticated", id?: MessageId, player: Player}} Authenticated */
/** @typedef {{type: "state", id?: MessageId, state: GameView}} State */

/**
 * An accepted move or auto move: the client plays `move` on its copy.
 * @typedef {object} Moved
 * @property {"moved"} type
 * @property {MessageId} [id]
 * @property {string} game
 * @property {number} seq
 * @property {string} move FROM-TOxN, the count explicit
 * @property {boolean} removed_run
 * @property {number} moves
 * @property {number} score
 * @property {number} removed
 * @property {boolean} won
 * @property {Placements | null} [legal]
 */

/**
 * A game ended: won, resigned, or closed at its day's end.
 * @typedef {object} Finished
 * @property {"finished"} type
 * @property {MessageId} [id]
 * @property {string} game
 * @property {string} code
 * @property {Mode} mode
 * @property {boolean} won
 * @property {boolean} resigned
 * @property {number} moves
 * @property {number} score
 * @property {number} removed
 * @property {number} elapsed
 * @property {string} finished_at
 * @property {number | null} [rank]
 * @property {number | null} [par]
 * @property {"held" | null} [review] held for fair-play review
 * @property {number | null} [percentile]
 * @property {{current: number, best: number} | null} [streak]
 * @property {string | null} [share]
 * @property {BoardName | null} [board]
 * @property {string | null} [counts_from]
 */

/** @typedef {{type: "targets", id?: MessageId, column: number, count?: number | null, columns: number[]}} TargetList */

/** `ready` false: still being proven (a `daily_changed` of the same day says when it is ready).
 * @typedef {{suits: SuitCount, started?: boolean | null, finished?: boolean | null, ready?: false | null}} TodayDeal */
/** @typedef {{suits: SuitCount, code: string, par?: number | null}} DailyCode */
/**
 * @typedef {object} DailyInfo
 * @property {"daily"} type
 * @property {MessageId} [id]
 * @property {string} day
 * @property {TodayDeal[]} deals
 * @property {DailyCode[]} [yesterday]
 * @property {number} seconds_left until the next day starts (UTC)
 */
/** @typedef {{type: "daily_changed", day: string, deals: TodayDeal[], yesterday?: DailyCode[]}} DailyChanged */

/**
 * @typedef {object} HistoryGame
 * @property {string} game
 * @property {string | null} [day]
 * @property {string | null} [code]
 * @property {SuitCount} suits
 * @property {Mode} mode
 * @property {boolean} won
 * @property {number} score
 * @property {number} moves
 * @property {number} elapsed
 * @property {string} finished_at
 * @property {number | null} [rank]
 * @property {"held" | null} [review]
 * @property {string | null} [race]
 * @property {number | null} [place]
 * @property {BoardName | null} [board]
 * @property {boolean} [verified]
 */
/**
 * @typedef {object} History
 * @property {"history"} type
 * @property {MessageId} [id]
 * @property {string} player
 * @property {{games: number, won: number, best_score: {[suits: string]: number}}} stats
 * @property {HistoryGame[]} games
 */

/**
 * A game in progress, as `unfinished` lists it.
 * @typedef {object} UnfinishedGame
 * @property {string} game
 * @property {Mode} mode
 * @property {SuitCount} suits
 * @property {string | null} [code]
 * @property {string | null} [day]
 * @property {string | null} [race]
 * @property {number} moves
 * @property {string} started
 */
/** @typedef {{type: "unfinished", id?: MessageId, games: UnfinishedGame[]}} Unfinished */

/**
 * A racer of the daily race.
 * @typedef {object} RaceEntry
 * @property {string} player
 * @property {number} moves
 * @property {number} score
 * @property {number} removed
 * @property {boolean} finished
 * @property {boolean} won
 * @property {boolean} [resigned]
 * @property {boolean} [bot]
 * @property {boolean} [left]
 * @property {number | null} [rank]
 */
/**
 * The daily race at a glance: `race_digest` (pushed), or `race` (the reply).
 * @typedef {object} RaceBoard
 * @property {"race" | "race_digest"} type
 * @property {MessageId} [id]
 * @property {string} day
 * @property {SuitCount} suits
 * @property {RaceEntry[]} players
 * @property {number} [total]
 * @property {number} [playing]
 * @property {number} [finished]
 */

/**
 * A racer in a room.
 * @typedef {object} RoomEntry
 * @property {string} player
 * @property {boolean} [bot]
 * @property {number} moves
 * @property {number} score
 * @property {number} removed
 * @property {boolean} won
 * @property {boolean} [resigned]
 * @property {boolean} finished won, resigned, or stopped by the time limit
 * @property {boolean} [left]
 * @property {number | null} [elapsed] a winner's time from the start
 * @property {number | null} [place] once the race is over
 */
/**
 * A race room as it stands.
 * @typedef {object} RoomView
 * @property {string} code
 * @property {RoomState} state
 * @property {string} owner
 * @property {SuitCount} suits
 * @property {boolean} public
 * @property {number} capacity
 * @property {boolean} allow_bots
 * @property {number} countdown
 * @property {number} time_limit seconds from the reveal to the end at the latest
 * @property {RoomEntry[]} racers in standings order
 * @property {string | null} [starts_at]
 * @property {number | null} [starts_in] seconds to the reveal when this view was made
 * @property {string | null} [ends_at]
 * @property {string | null} [auto_start_at]
 * @property {string | null} [deal]
 * @property {string | null} [next] the rematch room's code
 * @property {string | null} [previous]
 * @property {number} revision a view with a lower one is older
 */
/** @typedef {{type: "race_room", id?: MessageId, event?: string | null, room: RoomView}} RaceRoom */
/** @typedef {{type: "race_update", code: string, event: string, entry: RoomEntry}} RaceUpdate */

/** @typedef {{type: "pong", id?: MessageId, server_time: string}} Pong */
/** @typedef {{type: "language_set", id?: MessageId, lang: Language}} LanguageSet */
/** @typedef {{type: "settings_set", id?: MessageId, settings: PlayerSettings}} SettingsSet */
/**
 * @typedef {object} ErrorMessage
 * @property {"error"} type
 * @property {MessageId} [id]
 * @property {string} code
 * @property {string} message
 * @property {string | null} [rule]
 * @property {{[key: string]: string | number | null} | null} [detail]
 */

/** @typedef {{type: "signed_in", id?: MessageId, player: Player, token: string}} SignedIn */
/** @typedef {{type: "signed_out", reason: "revoked" | "deleted"}} SignedOut */
/**
 * A place the account is signed in (a credential of its own).
 * @typedef {object} CredentialInfo
 * @property {number} id
 * @property {"registration" | "rotation" | "passkey" | "terminal" | "recovery" | string} kind
 * @property {string} device what made it
 * @property {string} created
 * @property {string} created_from the address it was made from
 * @property {string} last_used
 * @property {string} last_used_from
 * @property {boolean} [current] this connection's
 */
/** @typedef {{id: number, name: string, created: string, last_used?: string | null}} PasskeyInfo */
/** @typedef {{type: "devices", id?: MessageId, credentials: CredentialInfo[], passkeys: PasskeyInfo[], recovery_codes_left: number}} Devices */
/** @typedef {{type: "token_rotated", id?: MessageId, token: string}} TokenRotated */
/** @typedef {{type: "recovery_codes", id?: MessageId, codes: string[]}} RecoveryCodes */
/** @typedef {{type: "passkey_options", id?: MessageId, purpose: "add" | "sign_in", options: {[field: string]: any}}} PasskeyOptions */
/** @typedef {{type: "device_request", id?: MessageId, user_code: string, device: string, created_from: string, expires_in: number}} DeviceRequest */
/** @typedef {{type: "device_approved", id?: MessageId, user_code: string, approved: boolean}} DeviceApproved */
/** @typedef {{type: "account_deleted", id?: MessageId, name: string}} AccountDeleted */

// -- friends and leagues ----------------------------------------------------------------

/** @typedef {{name: string, since: string}} FollowedPlayer */
/** @typedef {{type: "following", id?: MessageId, following: FollowedPlayer[], followers: FollowedPlayer[], blocked: FollowedPlayer[]}} Following */
/** @typedef {{rank: number, player: string, score: number, moves: number, elapsed: number, finished_at: string, won: boolean, removed: number, bot?: boolean}} LeaderboardRow */
/**
 * A page of a day's board; a friends' board of today before your own daily is done has no
 * rows, and `finished` names who of them has finished.
 * @typedef {{type: "leaderboard", id?: MessageId, day: string, suits: SuitCount, board: string, rows: LeaderboardRow[], next?: string | null, total: number, finished?: string[] | null, dealt?: false | null}} LeaderboardPage
 */
/** @typedef {{code: string, name: string, owner: string, suits: SuitCount, members: number, public: boolean}} LeagueSummary */
/** @typedef {{type: "leagues", id?: MessageId, leagues: LeagueSummary[]}} Leagues */
/** @typedef {{name: string, place: number, points: number, won: boolean, moves: number, score: number, removed: number, elapsed: number}} LeagueDayRow */
/**
 * A league's page as a member sees it (docs/protocol.md "Leagues").
 * @typedef {object} LeagueView
 * @property {"league"} type
 * @property {MessageId} [id]
 * @property {string} code
 * @property {string} name
 * @property {string} owner
 * @property {SuitCount} suits
 * @property {boolean} public
 * @property {string} invite the link that joins it
 * @property {{name: string, joined: string, streak: number}[]} members
 * @property {string} day today
 * @property {LeagueDayRow[]} today
 * @property {string[] | null} [finished_today] before your own daily: who has finished
 * @property {string} month the season shown, YYYY-MM
 * @property {{place: number, name: string, points: number, days: number, wins: number}[]} season
 * @property {{month: string, name: string, points: number}[]} winners
 */
/** @typedef {{type: "friend_finished", name: string, day: string, suits: SuitCount}} FriendFinished */

/**
 * Every message the play page reads; `type` tells them apart.
 * @typedef {Welcome | Registered | Authenticated | State | Moved | Finished | TargetList
 *   | DailyInfo | DailyChanged | History | Unfinished | RaceBoard | RaceRoom | RaceUpdate | Pong
 *   | LanguageSet | SettingsSet | SignedIn | SignedOut | Devices | TokenRotated | RecoveryCodes
 *   | PasskeyOptions | DeviceRequest | DeviceApproved | AccountDeleted | Following | LeaderboardPage
 *   | Leagues | LeagueView | FriendFinished | ErrorMessage} ServerMessage
 */

export {};
