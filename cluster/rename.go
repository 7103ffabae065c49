package cluster

// Rename gives node n the ID id (clusterRenameNode): a node met in the
// handshake state was added under a random ID until its real one is known.
// n keeps its place in the order of the known nodes.
func (st *State) Rename(n *Node, id string) {
	delete(st.nodes, n.ID)
	n.ID = id
	st.nodes[id] = n
}
