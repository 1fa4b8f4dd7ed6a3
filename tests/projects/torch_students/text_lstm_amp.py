"""BiLSTM sentiment classifier on IMDB (HF datasets + BERT tokenizer), optional AMP.

Hyper-parameters come from the original TF1 config, which specified keep probabilities.
"""
import argparse

import torch
import torch.nn as nn
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoTokenizer, DataCollatorWithPadding, set_seed

KEEP_PROB = 0.7        # TF1 config: dropout keep probability
EMBED_KEEP_PROB = 0.9  # TF1 config: embedding keep probability


class BiLSTMClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim=300, hidden=256, num_classes=2, pad_id=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
        self.embed_drop = nn.Dropout(p=1.0 - EMBED_KEEP_PROB)  # trap: converted to a drop rate
        self.lstm = nn.LSTM(embed_dim, hidden, num_layers=2, batch_first=True, bidirectional=True,
                            dropout=1 - KEEP_PROB)  # trap: converted to a drop rate
        self.norm = nn.BatchNorm1d(2 * hidden, momentum=1 - 0.9)  # trap: 1 - 0.9 == torch's 0.1
        self.drop = nn.Dropout(0.3)  # trap: drop probability in torch
        self.fc = nn.Linear(2 * hidden, num_classes)

    def forward(self, input_ids, attention_mask):
        x = self.embed_drop(self.embedding(input_ids))
        out, _ = self.lstm(x)
        mask = attention_mask.unsqueeze(-1).to(out.dtype)
        pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.fc(self.drop(self.norm(pooled)))


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for batch in loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            logits = model(batch["input_ids"], batch["attention_mask"])  # trap: model.eval() above
            correct += (logits.argmax(-1) == batch["labels"]).sum().item()
            total += batch["labels"].numel()
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--clip", type=float, default=1.0)
    parser.add_argument("--amp", action="store_true")
    args = parser.parse_args()

    set_seed(42)  # transformers.set_seed: python, numpy and torch
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    use_amp = args.amp and device.type == "cuda"

    tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    raw = load_dataset("imdb")
    tokenized = raw.map(lambda b: tokenizer(b["text"], truncation=True, max_length=256), batched=True,
                        remove_columns=["text"]).rename_column("label", "labels")
    collate = DataCollatorWithPadding(tokenizer)
    train_loader = DataLoader(tokenized["train"], batch_size=64, shuffle=True, collate_fn=collate)
    test_loader = DataLoader(tokenized["test"], batch_size=256, collate_fn=collate)

    model = BiLSTMClassifier(tokenizer.vocab_size, pad_id=tokenizer.pad_token_id).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)

    for epoch in range(args.epochs):
        model.train()
        for step, batch in enumerate(train_loader):
            batch = {k: v.to(device) for k, v in batch.items()}
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device.type, dtype=torch.float16, enabled=use_amp):
                logits = model(batch["input_ids"], batch["attention_mask"])
                loss = criterion(logits, batch["labels"])
            if use_amp:
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
            else:
                loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)  # trap: unscaled on the AMP branch, never scaled on the other
            if use_amp:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        print(f"epoch {epoch}: test acc {evaluate(model, test_loader, device):.4f}")


if __name__ == "__main__":
    main()
