"""graph_edit.py — what bench/peers' converters (to_qdq.py, to_dynamic.py) share: a model saved with its graph's
nodes replaced, the initializers no node reads any longer dropped and the converter's own added."""
import onnx


def save_with(model, nodes, added, dst):
    g = model.graph
    del g.node[:]
    g.node.extend(nodes)
    used = {x for n in g.node for x in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept + added)
    onnx.save(model, dst)
