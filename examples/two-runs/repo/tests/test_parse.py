import unittest

from durations import format_duration, parse_duration


class ParseDuration(unittest.TestCase):
    def test_single_units(self):
        self.assertEqual(parse_duration("90s"), 90)
        self.assertEqual(parse_duration("15m"), 900)
        self.assertEqual(parse_duration("2h"), 7200)

    def test_hours_and_minutes(self):
        self.assertEqual(parse_duration("1h30m"), 5400)

    def test_all_units(self):
        self.assertEqual(parse_duration("1h1m1s"), 3661)

    def test_rejects_garbage(self):
        for bad in ["", "abc", "10", "1x", "h1"]:
            with self.assertRaises(ValueError):
                parse_duration(bad)


class FormatDuration(unittest.TestCase):
    def test_round_trip(self):
        for text in ["1h30m", "45s", "2h5s"]:
            self.assertEqual(format_duration(parse_duration(text)), text)


if __name__ == "__main__":
    unittest.main()
