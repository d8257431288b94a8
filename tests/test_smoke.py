from forsale import new_game


def test_a_game_can_be_started():
    game = new_game(4, seed=1)
    assert game.phase == "auction"
    assert len(game.table) == 4
