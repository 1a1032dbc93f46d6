// Sequence models of the catalog: BERT-base/large for extractive question answering (Devlin et
// al. 2019; HuggingFace bert-*-uncased configurations) and a word-level LSTM language model
// (PyTorch's word_language_model example).
#include <cstdint>
#include <string>

#include "models/workload/architectures.hpp"

namespace fulcrum::models::architectures {

namespace {

constexpr std::int64_t kSequenceTokens = 128;
constexpr double kInt64Bytes = 8;

struct BertConfig {
  std::int64_t layers;
  std::int64_t hidden;
  std::int64_t heads;
  std::int64_t ffn;
};

constexpr std::int64_t kBertVocab = 30522;
constexpr std::int64_t kBertPositions = 512;
constexpr std::int64_t kBertTokenTypes = 2;

GraphWorkload bert(std::string name, const BertConfig& c, std::string note) {
  LayerGraph g;
  const auto ids = g.input({kSequenceTokens}, "input_ids");
  // Position and token-type ids are derived from the same sequence; each lookup is one gather.
  const auto word = g.embedding(ids, "embeddings.word", kBertVocab, c.hidden);
  const auto position = g.embedding(ids, "embeddings.position", kBertPositions, c.hidden);
  const auto token_type = g.embedding(ids, "embeddings.token_type", kBertTokenTypes, c.hidden);
  auto x = g.add(word, position, "embeddings.add_position");
  x = g.add(x, token_type, "embeddings.add_token_type");
  x = g.layernorm(x, "embeddings.layernorm");
  for (std::int64_t i = 0; i < c.layers; ++i)
    x = g.transformer_encoder(x, "encoder.layer." + std::to_string(i), c.heads, c.ffn);
  // The pooler (dense + tanh on the [CLS] token) belongs to the published BERT model and is
  // counted in its parameter figure; the QA head reads the token outputs instead.
  auto cls = g.slice_channels(x, "pooler.first_token", 0, 1);
  cls = g.linear(cls, "pooler.dense", c.hidden);
  g.activation(cls, "pooler.tanh", Activation::tanh);
  g.linear(x, "qa_outputs", 2);  // span start and end logits per token

  // input ids, token type ids and attention mask, int64 each
  const double input_bytes = 3 * kInt64Bytes * kSequenceTokens;
  return GraphWorkload(std::move(name), "question-answering", std::move(g), input_bytes,
                       std::move(note));
}

}  // namespace

GraphWorkload bert_base() {
  return bert("bert-base", {.layers = 12, .hidden = 768, .heads = 12, .ffn = 3072},
              "BERT-base (12 blocks, hidden 768, 12 heads, FFN 3072) for SQuAD-style QA on a "
              "128-token sequence; dropout and loss not modelled");
}

GraphWorkload bert_large() {
  return bert("bert-large", {.layers = 24, .hidden = 1024, .heads = 16, .ffn = 4096},
              "BERT-large (24 blocks, hidden 1024, 16 heads, FFN 4096) for SQuAD-style QA on a "
              "128-token sequence; dropout and loss not modelled");
}

GraphWorkload lstm() {
  // PyTorch's word_language_model example at its defaults (embedding 200, 2 LSTM layers of
  // hidden 200, 35-token context), with the WikiText-2 vocabulary (33,278 words).
  constexpr std::int64_t kVocab = 33278;
  constexpr std::int64_t kEmbedding = 200;
  constexpr std::int64_t kHidden = 200;
  constexpr std::int64_t kSteps = 35;
  LayerGraph g;
  auto x = g.input({kSteps}, "tokens");
  x = g.embedding(x, "encoder", kVocab, kEmbedding);
  x = g.lstm(x, "lstm.0", kHidden);
  x = g.lstm(x, "lstm.1", kHidden);
  // Next-word prediction: only the last step's hidden state is decoded.
  x = g.slice_channels(x, "last_step", kSteps - 1, 1);
  x = g.linear(x, "decoder", kVocab);
  g.softmax(x, "log_softmax");  // the example's forward ends in F.log_softmax
  return GraphWorkload(
      "lstm", "language-modelling", std::move(g), kInt64Bytes * kSteps,
      "word-level LSTM language model predicting the next word from a 35-token context: "
      "PyTorch's word_language_model example at its defaults (embedding 200, 2 LSTM layers of "
      "hidden 200, untied decoder) with the WikiText-2 vocabulary of 33,278 words; the decoder "
      "reads only the last step. The reference measurements do not name their LSTM; at 1.2 ms "
      "for batch 1 and about 30 us per further 35-token sequence they fit a model of this size, "
      "and not the 650-hidden model (Zaremba et al. 2014 medium) nor a decoder over all 35 "
      "steps, which need more than the Orin GPU's FP32 peak or, for hidden 650, re-read a 6.8 "
      "MB recurrent matrix that does not fit in the 4 MB L2 at every step");
}

}  // namespace fulcrum::models::architectures
