def f(values)
  [values.map { |v| v * 2 }, values.length]
end
require 'test/unit'
class TestHumanEval < Test::Unit::TestCase
  def test_f
    candidate = method(:f)
    assert_equal([[2, 4, 7], 3], candidate.call([1, 2, 3]))
  end
end
