#include <string>
#include <vector>

namespace cache {

// Lru keeps the most recent entries.
template <typename K, typename V>
class Lru {
 public:
  explicit Lru(std::size_t size) : size_(size) {}

  [[nodiscard]] bool full() const noexcept { return items_.size() >= size_; }

  void put(const K& key, V value) {
    if (full()) {
      items_.erase(items_.begin());
    }
    items_.push_back({key, std::move(value)});
  }

 private:
  std::size_t size_ = 128;
  std::vector<std::pair<K, V>> items_;
};

}  // namespace cache
